#!/usr/bin/env node
/** `industrial-ops`: the operator's command (cli/program.ts). */
import { loadStackEnvFile } from '../infra/env-file';
import { runCli } from './program';

// Beside `npm run up`: its addresses and secrets (.data/stack.env); the environment wins.
loadStackEnvFile();
runCli(process.argv).then(
  (code) => {
    process.exitCode = code;
    // Everything is closed by now; a handle left open by a library must not keep the operator waiting.
    setTimeout(() => process.exit(code), 5_000).unref();
  },
  (err: unknown) => {
    process.stderr.write(`error: ${(err as Error)?.message ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
