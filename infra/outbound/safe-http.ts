/**
 * The one outbound HTTP call of webhook deliveries (attempts and `POST .../test`): a POST to a
 * destination checked by the SSRF guard, connected to the checked addresses only, without
 * following redirects, within two deadlines, reading at most 1 KB of the answer: a connect
 * deadline (resolution, TCP and TLS set-up) of a few seconds, so a host that does not accept
 * connections releases its slot early, and the attempt's deadline for the whole exchange.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import type { HttpAttemptResult } from '../../domain/webhooks/outcome';
import { checkDestination, type ResolvedAddress, type Resolver, systemResolver } from './destination-guard';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 3_000;
export const MAX_RESPONSE_BODY_BYTES = 1024;
const USER_AGENT = 'industrial-ops-webhooks/1';

export interface PostSignedInput {
  url: string;
  /** Signature headers and any others; content-length is always computed here. */
  headers: Readonly<Record<string, string>>;
  /** The exact body, sent as UTF-8. */
  body: string;
  allowPrivate: boolean;
  resolver?: Resolver;
  /** Deadline for the whole attempt: resolution, connection, request, answer. */
  timeoutMs?: number;
  /** Deadline for resolution and connection (TLS handshake included), within `timeoutMs`. */
  connectTimeoutMs?: number;
}

/**
 * POSTs `body` to `url`. Never throws for network reasons: every ending is a result.
 * `latencyMs` spans the whole attempt, resolution included. When the deadline passes after the
 * status line arrived, the result is that response with the part of the body read so far.
 */
export async function postSigned(input: PostSignedInput): Promise<HttpAttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const deadline = new AbortController();
  let phase: 'connect' | 'response' = 'connect';
  const timer = setTimeout(() => deadline.abort(), input.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const connectTimer = setTimeout(() => deadline.abort(), input.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
  const connected = () => {
    phase = 'response';
    clearTimeout(connectTimer);
  };
  const timedOut = (): HttpAttemptResult => ({ kind: 'timeout', phase, latencyMs: elapsed() });
  try {
    const check = await untilAborted(checkDestination(input.url, { allowPrivate: input.allowPrivate, resolver: input.resolver ?? systemResolver }), deadline.signal);
    if (check === 'aborted') return timedOut();
    if (check.kind === 'refused') return { kind: 'refused_destination', reason: check.reason };
    if (check.kind === 'unresolved') return { kind: 'connection_error', message: check.message, latencyMs: elapsed() };
    return await send({ ...check, input, signal: deadline.signal, connected, timedOut, elapsed });
  } finally {
    clearTimeout(timer);
    clearTimeout(connectTimer);
  }
}

interface SendInput {
  url: URL;
  hostname: string;
  addresses: ResolvedAddress[];
  input: PostSignedInput;
  signal: AbortSignal;
  /** Called once the connection is up (TLS included): the connect deadline no longer applies. */
  connected: () => void;
  timedOut: () => HttpAttemptResult;
  elapsed: () => number;
}

function send({ url, hostname, addresses, input, signal, connected, timedOut, elapsed }: SendInput): Promise<HttpAttemptResult> {
  const body = Buffer.from(input.body, 'utf8');
  const secure = url.protocol === 'https:';
  const options: https.RequestOptions = {
    method: 'POST',
    protocol: url.protocol,
    hostname, // Host header and TLS server name stay the URL's host name...
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...input.headers, 'content-length': body.length },
    lookup: pinnedLookup(addresses), // ...while the socket goes to the checked addresses only.
    agent: false,
    signal,
    ...(secure && isIP(hostname) === 0 ? { servername: hostname } : {}),
  };

  return new Promise((resolve) => {
    let settled = false;
    let finishResponse: (() => void) | undefined;
    const settle = (result: HttpAttemptResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
      request.destroy();
    };
    const request = (secure ? https : http).request(options, (response) => {
      const collected = new BodyPrefix(MAX_RESPONSE_BODY_BYTES);
      const retryAfter = response.headers['retry-after'];
      const finish = () =>
        settle({
          kind: 'response',
          status: response.statusCode ?? 0,
          body: collected.text(),
          latencyMs: elapsed(),
          ...(retryAfter === undefined ? {} : { retryAfter }),
        });
      finishResponse = finish;
      response.on('data', (chunk: Buffer) => {
        if (collected.add(chunk)) finish();
      });
      // A body cut short (reset, deadline) still leaves the status the receiver answered with.
      response.on('end', finish);
      response.on('error', finish);
      response.on('close', finish);
    });
    request.on('socket', (socket) => socket.once(secure ? 'secureConnect' : 'connect', connected));
    request.on('error', (error) => {
      if (finishResponse) finishResponse();
      else if (signal.aborted) settle(timedOut());
      else settle({ kind: 'connection_error', message: error.message, latencyMs: elapsed() });
    });
    request.end(body);
  });
}

/** A `lookup` that answers with the already checked addresses, whatever it is asked. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all)
      callback(
        null,
        addresses.map(({ address, family }) => ({ address, family })),
      );
    else callback(null, addresses[0].address, addresses[0].family);
  };
}

/** The first `limit` bytes of a body, decoded as UTF-8 without a character cut in half. */
class BodyPrefix {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  /** Keeps what fits; true once the limit is reached. */
  add(chunk: Buffer): boolean {
    const room = this.limit - this.size;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
    return this.size >= this.limit;
  }

  text(): string {
    // write() without end() holds back an incomplete trailing character instead of mangling it;
    // NUL is replaced because PostgreSQL text columns refuse it.
    return new StringDecoder('utf8').write(Buffer.concat(this.chunks)).replaceAll('\u0000', '\uFFFD');
  }
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | 'aborted'> {
  if (signal.aborted) return Promise.resolve('aborted');
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
