/**
 * The operator's command, `industrial-ops <noun> <verb>` (package.json `bin`, dist/cli/main.js in
 * the image): commander parses, `--help` on every level; each verb calls services/ and db/
 * functions with the services' configuration (cli/runtime.ts), and prints text or `--json`
 * (cli/output.ts) with the exit codes of cli/errors.ts.
 */
import { Command, CommanderError } from 'commander';
import { EXIT, failureOf } from './errors';
import { Output } from './output';
import type { Perform } from './perform';
import { operatorName, Runtime } from './runtime';
import { registerMigrations } from './commands/migrations';
import { registerOutbox } from './commands/outbox';
import { registerTenants } from './commands/tenants';
import { registerTokens } from './commands/tokens';
import { registerUsers } from './commands/users';
import { registerWebhooks } from './commands/webhooks';
import { registerWorkflows } from './commands/workflows';

export const PROGRAM_NAME = 'industrial-ops';

const DESCRIPTION = 'Operator commands of the industrial operations service: tenants, users, service tokens, webhooks, the outbox, workflows, migrations.';

const AFTER_HELP = `
Configuration: the services' own environment (docs/CONFIGURATION.md): DATABASE_URL (the app's
role; \`migrations status\` reads DATABASE_MIGRATION_URL, the owner), TEMPORAL_*, TEMPORAL_UI_URL,
INTERNAL_JWT_SECRET and the rest. Beside \`npm run up\` they come from .data/stack.env.

Passwords are asked without echo, or read with --password-stdin or --password-file: never given
as arguments.

Exit codes: 0 done; 1 refused or failed (the error names why); 2 wrong command line;
3 a dependency (PostgreSQL, Temporal) is unavailable: retry.`;

export function buildProgram(perform: Perform, json: boolean): Command {
  const program = new Command(PROGRAM_NAME)
    .description(DESCRIPTION)
    .option('--json', 'print one JSON document on stdout: the result, or the error object (error_code, detail)')
    .option('--as <operator>', 'who the audit trail names for changes (default: OPS_OPERATOR, else the login name)')
    .addHelpText('after', AFTER_HELP)
    .exitOverride()
    // With --json the failure is printed as JSON (runCli): commander's own line would break it.
    .configureOutput({ outputError: (text, write) => void (json ? undefined : write(text)) })
    .showSuggestionAfterError(!json);
  registerTenants(program, perform);
  registerUsers(program, perform);
  registerTokens(program, perform);
  registerWebhooks(program, perform);
  registerOutbox(program, perform);
  registerWorkflows(program, perform);
  registerMigrations(program, perform);
  return program;
}

/** Parses `argv` (process.argv's shape) and runs the verb; answers the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const json = argv.slice(2).includes('--json');
  const output = new Output(json);
  let exit: number = EXIT.ok;
  const perform: Perform = async (command, work) => {
    let runtime: Runtime | null = null;
    try {
      runtime = new Runtime(operatorName(command.optsWithGlobals<{ as?: string }>().as));
      output.result(await work(runtime));
    } catch (err) {
      const failure = failureOf(err);
      output.failure(failure);
      exit = failure.exit;
    } finally {
      await runtime?.close().catch(() => undefined);
    }
  };
  const program = buildProgram(perform, json);
  try {
    await program.parseAsync([...argv]);
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.exitCode === 0) return EXIT.ok; // --help
    // A noun without its verb: commander printed the noun's help (to stderr); say so as an error too.
    const failure = failureOf(err.code === 'commander.help' ? new CommanderError(EXIT.usage, err.code, 'a command is required: see the help above') : err);
    if (json) output.failure(failure);
    return EXIT.usage;
  }
  return exit;
}
