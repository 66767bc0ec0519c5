import { ObjectStore } from './object-store';

/** S3's smallest allowed part (except the last): the most an upload holds in memory at once. */
export const UPLOAD_PART_BYTES = 5 * 1024 * 1024;

/**
 * Streams a source of unknown length into the object store at `key`, holding at most one part in
 * memory. (`client.putObject` with a stream of unknown size reads parts of ~560 MB, i.e. it would
 * buffer any realistic upload whole.) A source shorter than one part is one PUT; a longer one a
 * multipart upload, aborted when the source or a part fails, so nothing is left behind.
 */
export async function uploadObjectStream(store: ObjectStore, key: string, source: AsyncIterable<Buffer>, opts: { contentType: string; partBytes?: number }): Promise<void> {
  const partBytes = opts.partBytes ?? UPLOAD_PART_BYTES;
  const headers = { 'Content-Type': opts.contentType };
  const etags: Array<{ part: number; etag: string }> = [];
  let uploadId: string | null = null;
  // Until the source reaches one part its chunks are kept as they come; from then on one part
  // buffer is filled and reused for every part (one allocation, whatever the file's size).
  let part: Buffer | null = null;
  let chunks: Buffer[] = [];
  let filled = 0;

  const sendPart = async (bytes: Buffer) => {
    uploadId ??= await store.client.initiateNewMultipartUpload(store.bucket, key, headers);
    const partNumber = etags.length + 1;
    const { etag } = await store.client.uploadPart(
      { bucketName: store.bucket, objectName: key, uploadID: uploadId, partNumber, headers: { 'Content-Length': bytes.length } },
      bytes,
    );
    etags.push({ part: partNumber, etag });
  };

  try {
    for await (const chunk of source) {
      for (let offset = 0; offset < chunk.length;) {
        const take = Math.min(chunk.length - offset, partBytes - filled);
        if (part) chunk.copy(part, filled, offset, offset + take);
        else chunks.push(chunk.subarray(offset, offset + take));
        filled += take;
        offset += take;
        if (filled === partBytes) {
          if (!part) {
            part = Buffer.concat(chunks, partBytes);
            chunks = [];
          }
          await sendPart(part);
          filled = 0;
        }
      }
    }
    const last = part ? part.subarray(0, filled) : Buffer.concat(chunks, filled);
    if (uploadId === null) {
      await store.client.putObject(store.bucket, key, last, last.length, headers);
      return;
    }
    if (last.length > 0) await sendPart(last);
    await store.client.completeMultipartUpload(store.bucket, key, uploadId, etags);
  } catch (err) {
    if (uploadId !== null) await store.client.abortMultipartUpload(store.bucket, key, uploadId).catch(() => undefined);
    throw err;
  }
}
