/**
 * `extraction/<tenant>/<extraction>` (issue 8): load the source's text into chunks, extract the
 * chunks (a few at a time, one activity each, so a long document is many small retriable steps),
 * then store the merged record. Input, results and history hold ids and counts only.
 */
import { ActivityFailure, ApplicationFailure, defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ExtractionActivities } from '../activities/extraction/activities';

export interface ExtractionInput {
  tenantId: string;
  extractionId: string;
}

export type ExtractionPhase = 'loading' | 'extracting' | 'storing' | 'completed' | 'failed';
export interface ExtractionProgress {
  phase: ExtractionPhase;
  chunks: number;
  done: number;
}

export const extractionProgressQuery = defineQuery<ExtractionProgress>('progress');

/** Chunk activities in flight at once: enough to overlap model latency, few enough to be polite to it. */
export const PARALLEL_CHUNKS = 4;
/** The failure type (activities/extraction) whose fixed message becomes the job's error. */
const SOURCE_ERROR = 'ExtractionSourceError';

const { loadExtractionSource, completeExtraction, failExtraction } = proxyActivities<ExtractionActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5 },
});
const { extractExtractionChunk } = proxyActivities<ExtractionActivities>({
  startToCloseTimeout: '3 minutes',
  retry: { maximumAttempts: 5 },
});

function safeError(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === SOURCE_ERROR ? cause.message : 'the extraction failed';
}

export async function extractionWorkflow(input: ExtractionInput): Promise<{ recordId: string; chunks: number }> {
  const progress: ExtractionProgress = { phase: 'loading', chunks: 0, done: 0 };
  setHandler(extractionProgressQuery, () => ({ ...progress }));
  try {
    const { chunks } = await loadExtractionSource(input);
    progress.phase = 'extracting';
    progress.chunks = chunks;
    for (let first = 0; first < chunks; first += PARALLEL_CHUNKS) {
      const batch = Array.from({ length: Math.min(PARALLEL_CHUNKS, chunks - first) }, (_, i) => first + i);
      await Promise.all(batch.map((chunk) => extractExtractionChunk({ ...input, chunk }).then(() => void progress.done++)));
    }
    progress.phase = 'storing';
    const { recordId } = await completeExtraction(input);
    progress.phase = 'completed';
    return { recordId, chunks };
  } catch (err) {
    progress.phase = 'failed';
    await failExtraction({ ...input, error: safeError(err) });
    throw err;
  }
}
