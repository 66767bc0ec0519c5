/**
 * A same-work floor as a process of its own: a bare Koa handler that answers every request with the
 * rows of recorded statements replayed from a bare pg pool (bench/recorded-sql.ts). Beside the
 * product's API process (scripts/service-process.ts), each server's garbage collections and event
 * loop stalls land on its own requests only, as they would for two services, and the client that
 * times both is a third process's work, the same for both.
 *
 * Run by `startReplayServer` below, never by hand: the spec comes in the environment
 * (REPLAY_SPEC, JSON) and the process prints its URL as one JSON line when it listens.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import readline from 'node:readline';
import Koa from 'koa';
import { createApiServer, requestListener } from '../api/listen';
import { bareReplay, type RecordedStatement } from './recorded-sql';

export interface ReplaySpec {
  databaseUrl: string;
  tenantId: string;
  statements: RecordedStatement[];
  /** The ids that stay as recorded (a read replays as recorded: all of them). */
  keep: string[];
}

export interface ReplayServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts the floor in a child process; resolves when it listens. Bindings travel as JSON: a Date arrives as its ISO string. */
export async function startReplayServer(spec: ReplaySpec): Promise<ReplayServer> {
  const child = spawn(process.execPath, [__filename], { env: { ...process.env, REPLAY_SPEC: JSON.stringify(spec) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const lines = readline.createInterface({ input: child.stdout });
  const url = await Promise.race([
    (async () => {
      for await (const line of lines) {
        const parsed = JSON.parse(line) as { url?: string };
        if (parsed.url) return parsed.url;
      }
      throw new Error('the replay server ended before it listened');
    })(),
    exited.then(([code]) => {
      throw new Error(`the replay server exited with ${String(code)} before it listened`);
    }),
  ]);
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function serve(spec: ReplaySpec): Promise<void> {
  const replay = bareReplay(spec.databaseUrl, spec.tenantId, spec.statements, spec.keep);
  const app = new Koa();
  app.use(async (ctx) => {
    ctx.body = await replay.run();
  });
  // The API's own server settings (keep-alive, timeouts), plain HTTP.
  const server = createApiServer(requestListener(app.callback()), null);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void replay.close().then(() => process.exit(0));
  });
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
}

if (require.main === module) {
  serve(JSON.parse(process.env.REPLAY_SPEC ?? '{}') as ReplaySpec).catch((error: unknown) => {
    process.stderr.write(`replay server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
