/**
 * How a long text is scanned for PII in bounded pieces (docs/SECURITY.md, Text matching): chunks
 * of CHUNK_CHARS, each scanned in a window CHUNK_MARGIN wider on both sides, keeping the findings
 * that start inside the chunk. Exact, not approximate:
 *
 * - a chunk ends between two whitespace characters other than a CRLF line break or a phone
 *   number's double space (two spaces between digit groups: "020  7946  0958") when the last
 *   CUT_SEARCH characters before its nominal end hold such a pair. No detector's match holds two
 *   whitespace characters in a row except one line break written as CRLF and that double space (a
 *   separator is one space, one "-" between single spaces, one bracket between single spaces; an
 *   address wrapped across a line breaks once, between two non-blank characters), so no match crosses the cut and
 *   the scan in the window meets the same matches as the scan of the whole text;
 * - the margin holds the longest match any detector accepts plus the context its verdict reads
 *   (a label before, an extension after, a table's header above), so a match starting inside the chunk is whole in the
 *   window, and so is a match cut at a chunk end without a whitespace pair (a run of tokens
 *   longer than CUT_SEARCH: no accepted match is that long).
 *
 * Each start belongs to one chunk, so a finding is neither lost nor doubled at a boundary
 * (test/unit/privacy/chunks.test.ts compares chunked and whole scans on the bench's corpus).
 */
import { LONGEST_CARD_MATCH } from './detectors/credit-card';
import { LONGEST_EMAIL_MATCH } from './detectors/email';
import { ID_VERDICT_REACH, LONGEST_ID_MATCH } from './detectors/id-number';
import { LONGEST_PHONE_MATCH, PHONE_CONTEXT_REACH } from './detectors/phone';

/** Characters per chunk: about 60 ms of scanning on text dense with values (docs/SECURITY.md). */
export const CHUNK_CHARS = 64 * 1024;

/** The longest match a detector accepts plus the farthest its verdict reads around a match. */
export const CHUNK_MARGIN = Math.max(LONGEST_EMAIL_MATCH, LONGEST_PHONE_MATCH, LONGEST_CARD_MATCH, LONGEST_ID_MATCH) + Math.max(PHONE_CONTEXT_REACH, ID_VERDICT_REACH) + 1;

/** How far back from a chunk's nominal end a cut between two whitespace characters is looked for. */
const CUT_SEARCH = 4096;

/** A half-open range [from, to) of the text: the starts a chunk's scan keeps. */
export interface Chunk {
  readonly from: number;
  readonly to: number;
}

const isBlank = (ch: string | undefined): boolean => ch !== undefined && /\s/.test(ch);

/** Two spaces between digit groups, which a phone number may hold ("0161  496  0734", "(646)  902"). */
const isDigitGroupsGap = (text: string, at: number): boolean => /[\d)]/.test(text[at - 2] ?? '') && /[\d(]/.test(text[at + 1] ?? '') && !/[\r\n\t]/.test(text[at - 1] + text[at]);

/** The text's chunks, in order, covering it without gaps or overlaps; one chunk when it is short. */
export function chunksOf(text: string, size: number = CHUNK_CHARS): Chunk[] {
  const chunks: Chunk[] = [];
  let from = 0;
  while (text.length - from > size) {
    const nominal = from + size;
    const floor = nominal - Math.min(CUT_SEARCH, Math.floor(size / 2));
    const betweenBlanks = (at: number) => isBlank(text[at - 1]) && isBlank(text[at]) && !(text[at - 1] === '\r' && text[at] === '\n') && !isDigitGroupsGap(text, at);
    let cut = nominal;
    while (cut > floor && !betweenBlanks(cut)) cut -= 1;
    if (!betweenBlanks(cut)) cut = nominal;
    chunks.push({ from, to: cut });
    from = cut;
  }
  chunks.push({ from, to: text.length });
  return chunks;
}

/** The window a chunk is scanned in: the chunk and CHUNK_MARGIN characters on each side. */
export function windowOf(text: string, chunk: Chunk): Chunk {
  return { from: Math.max(0, chunk.from - CHUNK_MARGIN), to: Math.min(text.length, chunk.to + CHUNK_MARGIN) };
}
