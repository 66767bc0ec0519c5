/**
 * An uploaded logo decoded by libvips (sharp) inside a sandbox child and re-encoded: a header that
 * declares more than `maxPixels` is refused before any pixel is decoded (`limitInputPixels`), a
 * damaged image is refused (`failOn: 'error'`), and what comes out is a PNG the service wrote:
 * oriented, at most `maxSide` pixels a side, flattened on white (reports draw logos on a white
 * tile), no metadata. Renderers only ever embed these bytes.
 */
import type { TaskInput, TaskOutput } from '../protocol';

export async function logoImageTask(input: TaskInput<'logo-image'>): Promise<TaskOutput<'logo-image'>> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sharp = require('sharp') as typeof import('sharp');
  // One libvips thread and no operation cache: the child's memory is the task's.
  sharp.concurrency(1);
  sharp.cache(false);
  const { data, info } = await sharp(input.data, { limitInputPixels: input.maxPixels, failOn: 'error', sequentialRead: true })
    .rotate()
    .resize(input.maxSide, input.maxSide, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .png({ compressionLevel: 9 })
    .toBuffer({ resolveWithObject: true });
  return { png: data, width: info.width, height: info.height };
}
