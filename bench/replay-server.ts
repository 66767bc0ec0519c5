/**
 * A same-work floor as a process of its own: a bare Koa handler that answers every request with the
 * rows of recorded statements replayed from a bare pg pool (bench/recorded-sql.ts). Beside the
 * product's API process (scripts/service-process.ts), each server's garbage collections and event
 * loop stalls land on its own requests only, as they would for two services, and the client that
 * times both is a third process's work, the same for both.
 *
 * Run by `startReplayServer` below, never by hand: the spec comes in the environment
 * (REPLAY_SPEC, JSON) and the process says where it listens in a JSON line, as the API does.
 */
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { createApiServer, requestListener } from '../api/listen';
import { startProcessFromDist, type ServiceProcess } from '../scripts/service-process';
import { bareReplay, type RecordedStatement } from './recorded-sql';

export interface ReplaySpec {
  databaseUrl: string;
  tenantId: string;
  statements: RecordedStatement[];
  /** The ids that stay as recorded (a read replays as recorded: all of them). */
  keep: string[];
}

const READY = 'replay server listening';

/** Starts the floor in a child process; resolves when it listens. Bindings travel as JSON: a Date arrives as its ISO string. */
export function startReplayServer(spec: ReplaySpec): Promise<ServiceProcess> {
  return startProcessFromDist(
    { name: 'replay', script: 'dist/bench/replay-server.js', nodeFlags: [], ready: READY, url: (line) => String(line.url) },
    { REPLAY_SPEC: JSON.stringify(spec) },
    path.join(process.cwd(), '.run', 'bench', 'replay-server.log'),
  );
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
  process.stdout.write(`${JSON.stringify({ msg: READY, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
}

if (require.main === module) {
  serve(JSON.parse(process.env.REPLAY_SPEC ?? '{}') as ReplaySpec).catch((error: unknown) => {
    process.stderr.write(`replay server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
