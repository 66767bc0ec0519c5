/**
 * Requests held open on purpose, for tests of how a process stops: a POST to a real server whose
 * body is half sent, and a language-model provider that holds its answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A POST whose connection is open and whose body is half sent: in flight at the server until
 * `finish()` sends the rest. Resolves once the connection is established.
 */
export async function halfSentPost(origin: string, pathname: string, token: string, json: unknown) {
  const body = Buffer.from(JSON.stringify(json));
  const req = http.request(`${origin}${pathname}`, {
    method: 'POST',
    agent: false,
    headers: { 'Content-Type': 'application/json', 'Content-Length': body.length, Authorization: `Bearer ${token}` },
  });
  const answer = new Promise<{ status: number; connection: string | undefined; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  req.write(body.subarray(0, 8));
  await new Promise<void>((resolve, reject) => {
    req.once('error', reject);
    req.once('socket', (socket) => (socket.connecting ? socket.once('connect', () => resolve()) : resolve()));
  });
  return {
    finish() {
      req.end(body.subarray(8));
      return answer;
    },
  };
}

/** An OpenAI-compatible provider that holds its answer until `release()`. */
export async function heldProvider() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let received!: () => void;
  const requested = new Promise<void>((resolve) => (received = resolve));
  let delivered!: (ok: boolean) => void;
  const answered = new Promise<boolean>((resolve) => (delivered = resolve));
  const content = JSON.stringify({ invoice_number: { value: 'INV-HELD-1', quote: 'INV-HELD-1' } });
  const server = http.createServer((req, res) => {
    req.resume();
    received();
    // True once the whole answer went out; false when the caller hung up first (an aborted activity).
    res.once('finish', () => delivered(true));
    res.once('close', () => delivered(res.writableFinished));
    void released.then(() => {
      if (!res.destroyed)
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ model: 'held-1', choices: [{ message: { role: 'assistant', content } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requested,
    release,
    answered,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
