/**
 * Extraction activities (issue 8), driven by `extraction/<tenant>/<extraction>`: load the source's
 * text and split it into chunk rows, extract each chunk (model or built-in engine), then merge into
 * one record. Inputs and results carry ids and counts only; the text and the values stay in
 * PostgreSQL. Each step is idempotent: a retried load finds its chunks, a retried chunk finds its
 * result, a retried completion finds its record.
 */
import { ApplicationFailure } from '@temporalio/common';
import { appendAudit } from '../../db/audit';
import { fileById } from '../../db/queries/files';
import { findExtraction, matchSubjectContact } from '../../db/queries/extractions';
import { Db } from '../../db/knex';
import { appendEvent } from '../../db/outbox';
import { tenantScope } from '../../db/tenant-scope';
import { extractBuiltIn } from '../../domain/extraction/builtin';
import { ChunkPlanOptions, DEFAULT_CHUNKING, planChunks } from '../../domain/extraction/chunks';
import { mergeChunkResults } from '../../domain/extraction/merge';
import { extractionPrompt, parseModelAnswer } from '../../domain/extraction/model-answer';
import { subjectKeys } from '../../domain/extraction/subject';
import type { ChunkResult, TemplateField } from '../../domain/extraction/types';
import type { LlmProvider } from '../../domain/llm/provider';
import { TenantCapacityError } from '../../infra/tenant-limiter';
import { ObjectStore, readFileBounded } from '../../infra/object-store';
import type { SandboxPool } from '../../infra/sandbox/pool';
import { ContentError } from '../../infra/sandbox/protocol';
import { PDF_INFLATION, TIME_LIMITS } from '../../infra/sandbox/limits';
import { storableText } from '../../domain/text';

/** Bytes read from a file to extract from, and characters of text extracted: beyond, the job fails. */
export const MAX_SOURCE_BYTES = 50 * 1024 * 1024;
export const MAX_TEXT_CHARS = 2_000_000;
const CHUNK_INSERT_BATCH = 50;
const SYSTEM_ACTOR = { type: 'system', id: null } as const;

/** The failure type whose message the job shows as its error (our own, fixed texts: no document content). */
export const SOURCE_ERROR = 'ExtractionSourceError';
const sourceError = (message: string) => ApplicationFailure.nonRetryable(message, SOURCE_ERROR);
const sourceTooLarge = () => sourceError(`the file is larger than ${MAX_SOURCE_BYTES / 1024 / 1024} MiB, the extraction limit`);

export interface ExtractionRef {
  tenantId: string;
  extractionId: string;
}

export interface ExtractionDeps {
  db: Db;
  objectStore: ObjectStore;
  /** The configured model; null: the built-in engine. */
  llm: LlmProvider | null;
  chunking?: ChunkPlanOptions;
  /** The process's sandbox for untrusted files: PDFs are read there (infra/sandbox/pool.ts). */
  sandbox: SandboxPool;
}

const normalise = (text: string) => text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');

export function createExtractionActivities(deps: ExtractionDeps) {
  const { db, objectStore, llm } = deps;
  const chunking = deps.chunking ?? DEFAULT_CHUNKING;

  async function job(ref: ExtractionRef) {
    const row = await findExtraction(tenantScope(db, ref.tenantId), ref.extractionId);
    if (!row) throw ApplicationFailure.nonRetryable(`extraction ${ref.extractionId} not found`, 'NotFound');
    return row;
  }

  async function sourceText(ref: ExtractionRef, fileId: string): Promise<string> {
    const file = await fileById(tenantScope(db, ref.tenantId), fileId);
    if (!file) throw sourceError('the file no longer exists');
    const type = file.content_type.split(';')[0].trim().toLowerCase();
    if (type !== 'application/pdf' && type !== 'text/plain') {
      throw sourceError(`unsupported file type ${type}: only application/pdf and text/plain can be extracted`);
    }
    if (file.size_bytes > MAX_SOURCE_BYTES) throw sourceTooLarge();
    const bytes = await readFileBounded(objectStore, file, MAX_SOURCE_BYTES, sourceTooLarge);
    if (type === 'text/plain') return storableText(bytes.toString('utf8'));
    try {
      const { text } = await deps.sandbox.run(ref.tenantId, 'pdf-text', { data: bytes, limits: PDF_INFLATION }, { subject: 'the PDF', timeoutMs: TIME_LIMITS.pdfText });
      return storableText(text);
    } catch (err) {
      // The content's doing (a bomb, a parser's refusal, its memory or time): the job fails at once, saying why.
      if (err instanceof ContentError) throw sourceError(err.message);
      throw err;
    }
  }

  async function chunkWithModel(tenantId: string, provider: LlmProvider, fields: TemplateField[], text: string, base: number): Promise<ChunkResult> {
    try {
      const answer = await provider.complete({ tenantId, messages: extractionPrompt(fields, text), temperature: 0 });
      return { engine: 'openai-compatible', model: answer.model, fields: parseModelAnswer(fields, answer.text, text, base) };
    } catch (err) {
      // The tenant has its share of the model's calls: this chunk is retried later (TenantBusy), not answered by the built-in engine for good.
      if (err instanceof TenantCapacityError) throw err;
      // Provider down or an answer that is not the JSON asked for: the built-in engine answers, and says so.
      return { engine: 'built-in', model: 'built-in', fellBack: true, fields: extractBuiltIn(fields, text, base) };
    }
  }

  return {
    /** Reads the source's text into chunk rows; returns how many. */
    async loadExtractionSource(ref: ExtractionRef): Promise<{ chunks: number }> {
      const row = await job(ref);
      if (row.chunk_count !== null) return { chunks: row.chunk_count };
      let text: string;
      if (row.source_kind === 'file') {
        text = await sourceText(ref, row.file_id!);
      } else {
        const stored = await db('extractions').where({ tenant_id: ref.tenantId, id: ref.extractionId }).first('input_text');
        text = stored?.input_text ?? '';
      }
      text = normalise(text);
      if (text.trim() === '') throw sourceError('the document has no text (scanned PDFs need OCR, which is not supported)');
      if (text.length > MAX_TEXT_CHARS) throw sourceError(`the document has more than ${MAX_TEXT_CHARS} characters of text, the extraction limit`);
      const plan = planChunks(text, chunking);
      await db.transaction(async (tx) => {
        await tx('extraction_chunks').where({ extraction_id: ref.extractionId }).delete();
        for (let i = 0; i < plan.length; i += CHUNK_INSERT_BATCH) {
          await tx('extraction_chunks').insert(
            plan.slice(i, i + CHUNK_INSERT_BATCH).map((c, j) => ({
              tenant_id: ref.tenantId,
              extraction_id: ref.extractionId,
              chunk_index: i + j,
              start_offset: c.start,
              text: text.slice(c.start, c.end),
            })),
          );
        }
        await tx('extractions')
          .where({ tenant_id: ref.tenantId, id: ref.extractionId })
          .update({ chunk_count: plan.length, input_text: null, status: 'running', started_at: tx.fn.now() });
      });
      return { chunks: plan.length };
    },

    /** Extracts one chunk and stores its result once; returns the number of fields found in it. */
    async extractExtractionChunk(ref: ExtractionRef & { chunk: number }): Promise<{ found: number }> {
      const row = await job(ref);
      const chunk = await db('extraction_chunks').where({ tenant_id: ref.tenantId, extraction_id: ref.extractionId, chunk_index: ref.chunk }).first();
      if (!chunk) throw ApplicationFailure.nonRetryable(`chunk ${ref.chunk} of extraction ${ref.extractionId} not found`, 'NotFound');
      let result = chunk.result as ChunkResult | null;
      if (!result) {
        const fields = row.template_fields;
        result = llm
          ? await chunkWithModel(ref.tenantId, llm, fields, chunk.text, chunk.start_offset)
          : { engine: 'built-in', model: 'built-in', fields: extractBuiltIn(fields, chunk.text, chunk.start_offset) };
        await db('extraction_chunks')
          .where({ extraction_id: ref.extractionId, chunk_index: ref.chunk })
          .whereNull('result')
          .update({ result: JSON.stringify(result) });
      }
      return { found: Object.values(result.fields).filter((f) => f.value !== null).length };
    },

    /** Merges the chunks into the record, links its subject, emits `extraction.completed`. */
    async completeExtraction(ref: ExtractionRef): Promise<{ recordId: string }> {
      return db.transaction(async (tx) => {
        const scope = tenantScope(tx, ref.tenantId);
        const locked = await scope.table('extractions').where('id', ref.extractionId).forUpdate().first('status');
        if (!locked) throw ApplicationFailure.nonRetryable(`extraction ${ref.extractionId} not found`, 'NotFound');
        const row = (await findExtraction(scope, ref.extractionId))!;
        if (locked.status === 'completed') {
          if (!row.record_id) throw ApplicationFailure.nonRetryable('the record was deleted after completion', 'RecordDeleted');
          return { recordId: row.record_id };
        }
        const chunks = await tx('extraction_chunks').where({ extraction_id: ref.extractionId }).orderBy('chunk_index').select('chunk_index', 'result');
        const missing = chunks.filter((c) => !c.result).map((c) => c.chunk_index);
        if (chunks.length === 0 || missing.length > 0) throw new Error(`chunks without a result: ${missing.join(', ') || 'all'}`);
        const merged = mergeChunkResults(
          row.template_fields,
          chunks.map((c) => c.result as ChunkResult),
        );
        const subjectId = await matchSubjectContact(scope, subjectKeys(merged.fields));
        const [record] = await scope.insert(
          'extracted_records',
          {
            extraction_id: row.id,
            template_id: row.template_id,
            template_fields: JSON.stringify(row.template_fields),
            file_id: row.file_id,
            subject_contact_id: subjectId,
            fields: JSON.stringify(merged.fields),
            engine: merged.engine,
            model: merged.model,
            notice: merged.notice,
          },
          ['id'],
        );
        await tx('extraction_chunks').where({ extraction_id: row.id }).delete();
        await scope.table('extractions').where('id', row.id).update({ status: 'completed', completed_at: tx.fn.now(), input_text: null });
        await appendEvent(tx, {
          tenantId: ref.tenantId,
          type: 'extraction.completed',
          data: { extraction_id: row.id, record_id: record.id, template_id: row.template_id },
          source: 'extractions',
          idempotencyKey: `extraction.completed/${row.id}`,
        });
        await appendAudit(tx, {
          tenantId: ref.tenantId,
          actor: SYSTEM_ACTOR,
          action: 'extraction.completed',
          resourceType: 'extracted_record',
          resourceId: record.id,
          requestId: null,
          details: { extraction_id: row.id, template_id: row.template_id, engine: merged.engine, chunks: chunks.length },
          ...(subjectId ? { subjectId } : {}),
        });
        return { recordId: record.id as string };
      });
    },

    /** Marks the job failed with a fixed message and drops its transient text; a completed job stays completed. */
    async failExtraction(ref: ExtractionRef & { error: string }): Promise<void> {
      await db.transaction(async (tx) => {
        const changed = await tx('extractions')
          .where({ tenant_id: ref.tenantId, id: ref.extractionId })
          .whereNot('status', 'completed')
          .whereNot('status', 'failed')
          .update({ status: 'failed', error: ref.error.slice(0, 500), completed_at: tx.fn.now(), input_text: null });
        await tx('extraction_chunks').where({ tenant_id: ref.tenantId, extraction_id: ref.extractionId }).delete();
        if (changed === 0) return;
        await appendAudit(tx, {
          tenantId: ref.tenantId,
          actor: SYSTEM_ACTOR,
          action: 'extraction.failed',
          resourceType: 'extraction',
          resourceId: ref.extractionId,
          requestId: null,
        });
      });
    },
  };
}

export type ExtractionActivities = ReturnType<typeof createExtractionActivities>;
