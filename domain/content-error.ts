/**
 * Content from outside that cannot be processed as it is (a file, a message, an image that is
 * malformed, too large once decoded, too deep, or took too long): the same bytes fail the same way
 * every time, so a job that meets one fails at its first attempt with this reason
 * (activities/failure-hygiene.ts makes it non-retryable) instead of crashing or retrying into a loop.
 * The message names the bound or the defect, never the content.
 */
export class ContentError extends Error {
  constructor(
    /** A stable, machine-readable reason, e.g. `too_many_parts`, `decoded_too_large`, `timed_out`. */
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'ContentError';
  }
}
