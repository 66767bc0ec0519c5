/**
 * Fails a test file whose code sent a query on a pg client that still had one queued (a
 * transaction's reads in Promise.all): pg 8 queues it with a deprecation warning, pg 9 will refuse
 * it. Jest's sandboxed `process` does not see that warning, so the check wraps the client's query
 * with pg 8's own condition (lib/client.js), and keeps the caller's stack.
 */
import { Client } from 'pg';

const overlapping: string[] = [];
// eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with the client as `this`
const query = Client.prototype.query;

beforeAll(() => {
  Client.prototype.query = function queryChecked(this: Client & { _queryQueue?: unknown[]; pipeline?: boolean }, ...args: unknown[]) {
    if ((this._queryQueue?.length ?? 0) > 0 && !this.pipeline) overlapping.push(new Error('query on a busy pg client').stack ?? '');
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
});

afterAll(() => {
  Client.prototype.query = query;
  if (overlapping.length > 0) throw new Error(`a query was sent on a pg client already running one:\n${overlapping.join('\n')}`);
});
