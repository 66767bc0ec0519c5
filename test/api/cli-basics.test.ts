/**
 * The operator's command as a process: `--help` on every level, the password prompt in a
 * terminal, `migrations status` (read only, as the owner role), and the exit codes and error
 * objects of a wrong command line, a missing privilege and an unreachable database.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI, runCli, runJson } from '../support/cli';

jest.setTimeout(120_000);

const withoutOwner = () => {
  const env = { ...process.env };
  delete env.DATABASE_MIGRATION_URL;
  return env;
};

/**
 * Runs the command in a pseudo-terminal (Python's pty: Node has none), typing `answers` at its
 * prompts; answers everything the terminal showed and the exit code.
 */
function inTerminal(args: readonly string[], answers: readonly string[]): { shown: string; code: number | null } {
  const script = `
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
shown = b''
def read(until=None, seconds=30):
    global shown
    start = len(shown)
    end = time.time() + seconds
    while time.time() < end and (until is None or until not in shown[start:]):
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            return
        if not chunk:
            return
        shown += chunk
for answer in ${JSON.stringify(answers)}:
    read(b': ')
    shown += b'<typed>'
    os.write(fd, answer.encode() + b'\\r')
read()
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(shown)
sys.exit(os.waitstatus_to_exitcode(status))
`;
  const run = spawnSync('python3', ['-c', script, process.execPath, CLI, ...args], { env: process.env, encoding: 'utf8', timeout: 60_000 });
  return { shown: run.stdout, code: run.status };
}

describe('industrial-ops', () => {
  it('asks for a password in a terminal without echoing it, twice for a new one', () => {
    const create = ['tenants', 'create', '--name', 'Prompted', '--plan', 'free', '--admin-email', 'prompted@example.com'];
    // 11 characters: refused by the rule after both prompts, before anything is written.
    const short = inTerminal(create, ['tiny-secret', 'tiny-secret']);
    expect(short.shown).toContain("Admin's password: <typed>");
    expect(short.shown).toContain("Admin's password again: <typed>");
    expect(short.shown).not.toContain('tiny-secret');
    expect(short.shown).toContain('error: password needs at least 12 characters (VALIDATION_ERROR)');
    expect(short.code).toBe(1);
    const differ = inTerminal(create, ['one long password', 'another long password']);
    expect(differ.shown).not.toMatch(/one long|another long/);
    expect(differ.shown).toContain("error: the admin's password and its repetition differ (USAGE)");
    expect(differ.code).toBe(2);
  });

  it('answers --help at every level with exit 0, and a wrong command line with exit 2', async () => {
    for (const args of [['--help'], ['tenants', '--help'], ['webhooks', 'breaker', '--help'], ['tokens', 'mint', '--help']]) {
      const run = await runCli(args);
      expect({ args, code: run.code }).toEqual({ args, code: 0 });
      expect(run.stdout).toMatch(/^Usage: industrial-ops /);
    }
    const noun = await runCli(['users']);
    expect(noun.code).toBe(2);
    expect(noun.stderr).toContain('Usage: industrial-ops users');
    const unknown = await runCli(['--json', 'tenants', 'destroy']);
    expect({ code: unknown.code, json: unknown.json }).toEqual({ code: 2, json: { error_code: 'USAGE', detail: "unknown command 'destroy'" } });
  });

  it('says which migrations are applied, as the owner role; the app role may not read them', async () => {
    const compiled = fs.readdirSync(path.resolve(__dirname, '../../dist/db/migrations')).filter((file) => file.endsWith('.js'));
    const status = await runJson(['migrations', 'status']);
    expect(status).toEqual({
      up_to_date: true,
      applied: compiled.length,
      last_applied: { name: compiled.sort().at(-1), batch: expect.any(Number), migration_time: expect.any(String) },
      pending: [],
      unknown: [],
    });
    const text = await runCli(['migrations', 'status']);
    expect(text.stdout).toMatch(new RegExp(`^applied +${compiled.length}\\nlast applied +${compiled.at(-1)!.replace('.', '\\.')} \\(batch \\d+, `));

    const asApp = await runCli(['--json', 'migrations', 'status'], { env: withoutOwner() });
    expect({ code: asApp.code, error_code: asApp.json.error_code }).toEqual({ code: 1, error_code: 'INSUFFICIENT_PRIVILEGE' });
    expect(asApp.json.detail).toContain('knex_migrations');
  });

  it('answers exit 3 DEPENDENCY_UNAVAILABLE when PostgreSQL cannot be reached, and names a broken configuration', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.port = '1';
    const down = await runCli(['--json', 'tenants', 'list'], { env: { ...process.env, DATABASE_URL: url.toString() } });
    expect({ code: down.code, error_code: down.json.error_code, down: down.json.down }).toEqual({ code: 3, error_code: 'DEPENDENCY_UNAVAILABLE', down: ['postgres'] });
    const broken = await runCli(['--json', 'tenants', 'list'], { env: { ...process.env, JWT_SECRET: 'short' } });
    expect({ code: broken.code, error_code: broken.json.error_code, problems: broken.json.problems }).toEqual({
      code: 1,
      error_code: 'CONFIGURATION_ERROR',
      problems: ['JWT_SECRET must be at least 32 characters'],
    });
  });
});
