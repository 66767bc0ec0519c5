/**
 * Long documents are extracted in chunks, one activity each (issue 8). Chunks overlap so a label at
 * the end of one chunk still has its value in the next, and end at a line break when there is one in
 * their last fifth, so a line is rarely cut. Pure and deterministic: the activity that extracts chunk
 * `i` recomputes the same plan from the same text.
 */
export interface ChunkPlanOptions {
  maxChars: number;
  overlapChars: number;
}

export const DEFAULT_CHUNKING: ChunkPlanOptions = { maxChars: 8_000, overlapChars: 400 };

export interface ChunkBounds {
  start: number;
  end: number;
}

export function planChunks(text: string, options: ChunkPlanOptions = DEFAULT_CHUNKING): ChunkBounds[] {
  const { maxChars, overlapChars } = options;
  if (overlapChars >= maxChars / 2) throw new Error('overlap must be less than half a chunk');
  if (text.length <= maxChars) return [{ start: 0, end: text.length }];
  const chunks: ChunkBounds[] = [];
  let start = 0;
  for (;;) {
    let end = Math.min(start + maxChars, text.length);
    if (end < text.length) {
      const newline = text.lastIndexOf('\n', end - 1);
      if (newline >= end - Math.floor(maxChars / 5)) end = newline + 1;
    }
    chunks.push({ start, end });
    if (end >= text.length) return chunks;
    start = end - overlapChars;
  }
}
