// Jest globalSetup of the `api` project: a real stack on free ports, in a temporary directory
// (scripts/lib/ephemeral-stack.cjs, shared with `npm run bench`): PostgreSQL, Temporal dev server,
// MinIO, migrations, an SMTP sink catching the worker's mail, and ONE worker from dist/.
// The environment (fresh random secrets, APP_ENV=test) goes into process.env, which Jest's test
// workers inherit, and into .run/test-stack.json. Logs: .run/{postgres,temporal,minio,migrate,worker}.log.
// TEST_STACK_RUN_DIR moves the stack's logs and description: npm test runs a second jest beside the
// first, with a stack of its own (scripts/test.mjs).
import fs from 'node:fs';
import path from 'node:path';
import stackLib = require('../../scripts/lib/ephemeral-stack.cjs');
import { TEST_SCRYPT_LOG2_N } from './password-cost';
import { startSmtpSink } from './smtp-sink';
import { startWhatsappSink } from './whatsapp-sink';
import { rememberTestStack } from './test-stack';

const ROOT = path.resolve(__dirname, '..', '..');
const RUN_DIR = path.resolve(ROOT, process.env.TEST_STACK_RUN_DIR ?? '.run');

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const log = (text: string) => process.stderr.write(`[test-stack] ${text}\n`);
  const stack = await stackLib.startEphemeralStack({
    root: ROOT,
    runDir: RUN_DIR,
    log,
    // Short webhook deadlines, so a receiver that never answers holds an attempt 2 s, not 10 s
    // (test/api/webhook-capacity.test.ts stays well under a minute); set them to measure otherwise.
    extraEnv: { WEBHOOK_RESPONSE_TIMEOUT_MS: process.env.WEBHOOK_RESPONSE_TIMEOUT_MS ?? '2000', WEBHOOK_CONNECT_TIMEOUT_MS: process.env.WEBHOOK_CONNECT_TIMEOUT_MS ?? '1000' },
    // A real SMTP server catching the worker's mail as files (test/support/mail.ts waitForMail).
    beforeWorker: async ({ tmpDir, runner }) => {
      const smtp = await startSmtpSink(path.join(tmpDir, 'mail'));
      runner.register('smtp', smtp.close);
      // The WhatsApp Cloud API stand-in the worker sends conversation replies to (whatsapp-sink.ts).
      const whatsapp = await startWhatsappSink(path.join(tmpDir, 'whatsapp'));
      runner.register('whatsapp-sink', whatsapp.close);
      return {
        SMTP_URL: smtp.url,
        MAIL_SINK_DIR: smtp.dir,
        WHATSAPP_API_BASE_URL: whatsapp.url,
        WHATSAPP_SINK_DIR: whatsapp.dir!,
        // Cheaper password hashes than OWASP's (password-cost.ts): the suite creates hundreds of users.
        TEST_SCRYPT_LOG2_N: String(TEST_SCRYPT_LOG2_N),
      };
    },
  });
  rememberTestStack(stack);
  Object.assign(process.env, stack.env);
  const description = {
    startedAt: new Date(started).toISOString(),
    tmpDir: stack.tmpDir,
    env: stack.env,
    pids: Object.fromEntries(stack.runner.runningChildren().map((child) => [child.name, child.pid])),
    logs: RUN_DIR,
  };
  fs.writeFileSync(path.join(RUN_DIR, 'test-stack.json'), JSON.stringify(description, null, 2) + '\n', { mode: 0o600 });
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s (logs in ${path.relative(ROOT, RUN_DIR)}/)`);
}
