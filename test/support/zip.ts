import JSZip from 'jszip';

/** The entries of a ZIP held in memory, in archive order, each CRC-checked (tests only). */
export async function readZip(zip: Buffer): Promise<Map<string, Buffer>> {
  const archive = await JSZip.loadAsync(zip, { checkCRC32: true });
  const files = new Map<string, Buffer>();
  for (const entry of Object.values(archive.files)) {
    if (!entry.dir) files.set(entry.name, await entry.async('nodebuffer'));
  }
  return files;
}
