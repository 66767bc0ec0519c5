/**
 * What the parent and a sandbox child say to each other (infra/sandbox/pool.ts, child.ts): one
 * task at a time, by kind, over the IPC channel with structured-clone serialization (Buffers
 * arrive as Uint8Array, Dates as Dates). Pure types and the error the callers see.
 */
import { ContentError as DomainContentError } from '../../domain/content-error';
import type { ReportDocument } from '../../domain/reports/document';
import type { RenderBranding } from '../reports/branding';
import type { InflationLimits } from './tasks/pdf-inflation';

export interface TaskTypes {
  /** A PDF's text (pdf.js through pdf-parse), after its flate streams were measured against `limits`. */
  'pdf-text': { input: { data: Uint8Array; limits: InflationLimits }; output: { text: string } };
  /** A report document drawn as PDF (pdfkit) or XLSX (write-excel-file), with the branding's logo embedded. */
  'render-report': { input: { format: 'pdf' | 'xlsx'; document: ReportDocument; branding: RenderBranding }; output: { bytes: Uint8Array } };
  /** An uploaded PNG or JPEG decoded by libvips (sharp) within `maxPixels` and re-encoded as a PNG the service produced. */
  'logo-image': { input: { data: Uint8Array; maxPixels: number; maxSide: number }; output: { png: Uint8Array; width: number; height: number } };
}

export type TaskKind = keyof TaskTypes;
export type TaskInput<K extends TaskKind> = TaskTypes[K]['input'];
export type TaskOutput<K extends TaskKind> = TaskTypes[K]['output'];

export interface TaskRequest<K extends TaskKind = TaskKind> {
  id: number;
  kind: K;
  input: TaskInput<K>;
}

/** Why a content task failed, as the child judged it (`memory`: an allocation was refused; `inflation`: a decompression cap; `invalid`: the parser refused the bytes). */
export type ChildFailure = 'memory' | 'inflation' | 'invalid';

export type TaskReply =
  | { id: number; ok: true; output: unknown }
  | { id: number; ok: false; failure: ChildFailure; detail: string }
  /** Sent once after start: the child's data segment with its parsers loaded (calibration). */
  | { ready: true; vmDataKiB: number };

/** Why the content was refused; every one is the content's doing, so none is worth a retry. */
export type ContentFailure = ChildFailure | 'timeout' | 'crashed';

/**
 * Untrusted content that could not be processed within the sandbox's bounds. Its message is ours
 * (limits and parser error names, never the content), fit for a 4xx or a job's error.
 */
export class ContentError extends DomainContentError {
  constructor(
    readonly failure: ContentFailure,
    message: string,
  ) {
    super(failure, message);
  }
}

/** The sandbox could not take the task now (its queue is full, or a child would not start): worth a retry later, not the content's fault. */
export class SandboxUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxUnavailableError';
  }
}
