/**
 * Inbound e-mail parsed off the API's event loop. mailparser on the loop blocked it for up to
 * 0.64 s per message (a 260 KB Cc header; 0.38 s for 10 MiB of text, measured on the 2-core test
 * machine under load) and turned 10 MiB of HTML into text for 8.3 s of CPU, while every tenant's
 * requests waited. Here each message is parsed in a worker thread of its own, within MAIL_LIMITS:
 * a heap the thread cannot outgrow, a time limit after which the thread is terminated, at most
 * `threads` parses at once per process and one tenant's share of them (infra/tenant-limiter.ts),
 * mailsplit's own bounds on parts and header bytes, and a cap on the bytes its transfer encodings
 * decode to, counted as they stream (attachments are counted, never kept). A message beyond a
 * bound is refused with the bound it broke (a ContentError with its reason), never a 500.
 */
import { Worker } from 'node:worker_threads';
import { ContentError } from '../domain/content-error';
import { BoundedGate } from './bounded-gate';
import { tenantLimiter, type TenantLimits } from './tenant-limiter';
import { LOWER_THIS_THREAD_PRIORITY_JS } from './background-priority';

/** What the API keeps of a message: the rest (attachments, HTML) is dropped in the thread. */
export interface ParsedMail {
  from: { address: string; name: string } | null;
  subject: string | null;
  messageId: string | null;
  /** The text part, or the text of the HTML part (mailparser's conversion). */
  text: string;
  /** mailparser's raw header lines, for the auto-reply policy (domain/agents/auto-reply-policy.ts). */
  headerLines: { key: string; line: string }[];
  /** SHA-256 (hex) of the raw message: its redelivery key when it has no Message-ID. */
  sha256: string;
}

/** Why a message was refused: each names one bound of MAIL_LIMITS, or a defect. */
export type MailRefusal = 'too_many_parts' | 'headers_too_large' | 'decoded_too_large' | 'too_complex' | 'malformed';

/** The bounds of one parse; the figures behind them are in docs/SECURITY.md, "Untrusted messages". */
export const MAIL_LIMITS = {
  /** MIME parts (every node, nested ones included). */
  maxParts: 500,
  /** Header bytes of one MIME node (Postfix's own header_size_limit is 102 400). */
  maxHeaderBytes: 100 * 1024,
  /** Bytes all parts decode to (base64, quoted-printable, charsets), attachments included. */
  maxDecodedBytes: 16 * 1024 * 1024,
  /** HTML converted to text when there is no text part; a larger HTML part leaves the text empty. */
  maxHtmlToTextBytes: 512 * 1024,
  /** Wall time of one parse in its thread. */
  timeoutMs: 10_000,
  /** The thread's heap (V8 old generation). */
  maxHeapMb: 96,
} as const;

/** The bounds of one parse: MAIL_LIMITS's keys, any figures (tests narrow them). */
export type MailLimits = { readonly [K in keyof typeof MAIL_LIMITS]: number };

const PARSE_IN_THREAD = `
${LOWER_THIS_THREAD_PRIORITY_JS}
const { parentPort, workerData } = require('node:worker_threads');
const { MailParser } = require(workerData.module);
const { createHash } = require('node:crypto');
const limits = workerData.limits;
const raw = Buffer.from(workerData.raw);
let decoded = 0;
let done = false;
const finish = (message) => {
  if (done) return;
  done = true;
  parentPort.postMessage(message);
};
const count = (bytes) => {
  decoded += bytes;
  if (decoded > limits.maxDecodedBytes) finish({ ok: false, reason: 'decoded_too_large' });
};
const parser = new MailParser({
  skipImageLinks: true,
  skipTextToHtml: true,
  maxHtmlLengthToParse: limits.maxHtmlToTextBytes,
  maxHeadSize: limits.maxHeaderBytes,
  maxChildNodes: limits.maxParts,
});
let headers = null;
let text = '';
parser.on('headers', (h) => (headers = h));
parser.on('data', (data) => {
  if (data.type === 'attachment') {
    data.content.on('data', (chunk) => count(chunk.length));
    data.content.on('end', () => data.release());
  } else if (data.type === 'text') {
    text = data.text || '';
    count(text.length + (data.html ? data.html.length : 0));
  }
});
parser.on('error', (err) => {
  const reason = err && err.code === 'EMAXLEN' ? (/header/i.test(err.message) ? 'headers_too_large' : 'too_many_parts') : 'malformed';
  finish({ ok: false, reason });
});
parser.on('end', () => {
  const from = headers && headers.get('from');
  const sender = from && Array.isArray(from.value) ? from.value.find((a) => a && a.address) : null;
  const subject = headers && headers.get('subject');
  const messageId = headers && headers.get('message-id');
  finish({
    ok: true,
    mail: {
      from: sender ? { address: String(sender.address), name: String(sender.name || '') } : null,
      subject: typeof subject === 'string' ? subject : null,
      messageId: typeof messageId === 'string' ? messageId : null,
      text,
      headerLines: (parser.headerLines || []).map((l) => ({ key: String(l.key), line: String(l.line) })),
      sha256: createHash('sha256').update(raw).digest('hex'),
    },
  });
});
parser.end(raw);
`;

const REFUSALS: Record<MailRefusal, string> = {
  too_many_parts: `the message has more than ${MAIL_LIMITS.maxParts} MIME parts`,
  headers_too_large: `a MIME part's header exceeds ${MAIL_LIMITS.maxHeaderBytes} bytes`,
  decoded_too_large: `the message decodes to more than ${MAIL_LIMITS.maxDecodedBytes} bytes`,
  too_complex: `the message could not be parsed within ${MAIL_LIMITS.timeoutMs / 1000} s and ${MAIL_LIMITS.maxHeapMb} MiB`,
  malformed: 'the message is not a readable MIME message',
};

export class MailRefused extends ContentError {
  constructor(readonly refusal: MailRefusal) {
    super(refusal, REFUSALS[refusal]);
  }
}

type ThreadAnswer = { ok: true; mail: ParsedMail } | { ok: false; reason: MailRefusal };

/**
 * One message in a thread of its own, within MAIL_LIMITS. The message's memory moves to the thread
 * (`raw` is empty afterwards) rather than being copied: a 10 MiB message is garbage the API's
 * heap does not have to collect twice.
 */
export function parseMailInThread(raw: Buffer, limits: MailLimits = MAIL_LIMITS): Promise<ParsedMail> {
  // A small Buffer shares Node's pool with others: only a Buffer that owns its memory moves.
  const owned = raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength ? new Uint8Array(raw.buffer as ArrayBuffer) : new Uint8Array(raw);
  return new Promise((resolve, reject) => {
    const worker = new Worker(PARSE_IN_THREAD, {
      eval: true,
      workerData: { module: require.resolve('mailparser'), limits, raw: owned },
      transferList: [owned.buffer],
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb },
      stdout: true,
      stderr: true,
    });
    let settled: (() => void) | null = null;
    // Settled when the thread is gone, so a slot of the gate covers the thread's whole life.
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = outcome;
      void worker.terminate();
    };
    const timer = setTimeout(() => settle(() => reject(new MailRefused('too_complex'))), limits.timeoutMs);
    worker.once('message', (answer: ThreadAnswer) => settle(() => (answer.ok ? resolve(answer.mail) : reject(new MailRefused(answer.reason)))));
    // Out of heap (ERR_WORKER_OUT_OF_MEMORY) or any other death of the thread: the message is what it could not parse.
    worker.once('error', () => settle(() => reject(new MailRefused('too_complex'))));
    worker.once('exit', () => {
      clearTimeout(timer);
      (settled ?? (() => reject(new MailRefused('too_complex'))))();
    });
  });
}

export interface InboundMailParser {
  /**
   * The message, once a thread of the process and the tenant's share allow: TenantCapacityError
   * when the tenant's share is full, ProcessBusyError when the process's waiting turns are.
   */
  parse(tenantId: string, raw: Buffer): Promise<ParsedMail>;
}

export class ProcessBusyError extends Error {
  constructor() {
    super('every mail parsing thread of this process is taken and its waiting turns are full');
    this.name = 'ProcessBusyError';
  }
}

/** Parses at once per API process: its pod asks for a quarter of a core, and a parse is CPU-bound. */
export const MAIL_PARSE_THREADS = 2;
/** Messages waiting for a thread, all tenants: with two threads of at most 10 s each, a turn comes within 40 s. */
const MAIL_PARSE_WAITING = 8;

/** One tenant's share of the parsing threads: one at a time, a few waiting. */
export const MAIL_PARSE_SHARE: TenantLimits = { maxInFlight: 1, maxWaiting: 4, maxWaitMs: 20_000 };

/** The process's inbound mail parsing: at most `threads` at once, a tenant at most its share of them. */
export function createInboundMailParser(options: { threads: number }): InboundMailParser {
  const gate = new BoundedGate(options.threads, MAIL_PARSE_WAITING);
  const share = tenantLimiter('mail_parse', MAIL_PARSE_SHARE);
  return {
    parse: (tenantId, raw) =>
      share.run(tenantId, async () => {
        const mail = await gate.run(() => parseMailInThread(raw));
        if (mail === null) throw new ProcessBusyError();
        return mail;
      }),
  };
}
