import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { readStoredZip, ZipStreamWriter } from '../../activities/privacy/zip-stream';

async function build(entries: Array<[string, string[]]>): Promise<Buffer> {
  const out = new PassThrough();
  const parts: Buffer[] = [];
  out.on('data', (b: Buffer) => parts.push(b));
  const zip = new ZipStreamWriter(out, new Date('2026-11-23T10:20:30Z'));
  for (const [name, chunks] of entries) await zip.addEntry(name, chunks);
  await zip.finish();
  return Buffer.concat(parts);
}

describe('ZipStreamWriter', () => {
  it('writes entries chunk by chunk with their CRC-32 and SHA-256, readable back', async () => {
    const out = new PassThrough();
    out.resume();
    const zip = new ZipStreamWriter(out, new Date('2026-11-23T10:20:30Z'));
    const a = await zip.addEntry('a.json', ['[', '{"x":1}', ']']);
    expect(a).toEqual({ name: 'a.json', size: 9, crc32: 3591512110, sha256: '45fa679977289675167a1e277c1febba4c59b00c64853a8462116f46f1a5f4f7' });
    const bytes = await zip.finish();
    expect(bytes).toBe(zip.bytesWritten);
  });

  it('round-trips names and contents, including an empty entry and UTF-8 names', async () => {
    const zip = await build([
      ['conversations.json', ['[]']],
      ['ñame.json', ['{"é":"ü"}']],
      ['empty.txt', []],
    ]);
    const files = readStoredZip(zip);
    expect([...files.keys()]).toEqual(['conversations.json', 'ñame.json', 'empty.txt']);
    expect(files.get('ñame.json')!.toString('utf8')).toBe('{"é":"ü"}');
    expect(files.get('empty.txt')!.length).toBe(0);
  });

  it('is accepted by the system unzip when present', async () => {
    let hasUnzip = true;
    try {
      execFileSync('unzip', ['-v'], { stdio: 'ignore' });
    } catch {
      hasUnzip = false;
    }
    if (!hasUnzip) return;
    const dir = mkdtempSync(join(tmpdir(), 'zip-'));
    const file = join(dir, 'a.zip');
    writeFileSync(
      file,
      await build([
        ['one.json', ['{"a":', '1}']],
        ['two.json', ['[1,2,3]']],
      ]),
    );
    const listing = execFileSync('unzip', ['-t', file]).toString();
    expect(listing).toContain('No errors detected');
    expect(execFileSync('unzip', ['-p', file, 'one.json']).toString()).toBe('{"a":1}');
  });
});

describe('ZipStreamWriter failures', () => {
  it('rejects instead of hanging when the output fails while it waits for drain', async () => {
    const out = new PassThrough({ highWaterMark: 16 });
    out.on('error', () => undefined);
    const zip = new ZipStreamWriter(out, new Date('2026-11-23T00:00:00Z'));
    setTimeout(() => out.destroy(new Error('upload failed')), 20);
    await expect(zip.addEntry('big.json', ['x'.repeat(1024), 'y'.repeat(1024)])).rejects.toThrow(/upload failed|closed/);
  });
});
