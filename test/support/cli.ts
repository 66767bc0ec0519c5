/**
 * The operator's command as an operator runs it: `node dist/cli/main.js` as a real process with
 * the stack's environment (global-setup.ts exported it), stdin given or closed. Run `npm run
 * build` first: the tests spawn the compiled command.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

export const CLI = path.resolve(__dirname, '../../dist/cli/main.js');

/** Who the tests' changes are audited as. */
export const TEST_OPERATOR = 'test-operator';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout as the JSON document of `--json`. */
  json: any;
}

export function runCli(args: readonly string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, '--as', TEST_OPERATOR, ...args], { env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** `--json` and the document it printed; fails the test with the output when the exit code is not `expected`. */
export async function runJson(args: readonly string[], options: { input?: string; env?: NodeJS.ProcessEnv; expectedCode?: number } = {}): Promise<any> {
  const run = await runCli(['--json', ...args], options);
  if (run.code !== (options.expectedCode ?? 0)) throw new Error(`industrial-ops ${args.join(' ')} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  return run.json;
}
