/**
 * The operator command's tree (cli/program.ts) without running it: every noun and verb has a
 * description and its own --help, and no option takes a secret's value on the command line.
 */
import { Command } from 'commander';
import { buildProgram } from '../../../cli/program';

const program = buildProgram(async () => undefined, false);

function* allCommands(command: Command, path: string[] = []): Generator<[string, Command]> {
  yield [[...path, command.name()].join(' '), command];
  for (const sub of command.commands) yield* allCommands(sub, [...path, command.name()]);
}

const commands = [...allCommands(program)].filter(([, command]) => command.name() !== 'help');

describe('industrial-ops', () => {
  it('has the nouns and verbs of the operator', () => {
    const names = commands.map(([name]) => name.replace(/^industrial-ops ?/, '')).filter(Boolean);
    expect(names).toEqual(
      expect.arrayContaining([
        'tenants create',
        'tenants list',
        'tenants show',
        'tenants set-plan',
        'tenants suspend',
        'tenants resume',
        'users create',
        'users reset-password',
        'users unlock',
        'users revoke-sessions',
        'tokens mint',
        'tokens list',
        'tokens revoke',
        'webhooks failing',
        'webhooks deliveries',
        'webhooks requeue',
        'webhooks breaker show',
        'webhooks breaker reset',
        'outbox backlog',
        'outbox requeue',
        'workflows link',
        'migrations status',
      ]),
    );
  });

  it.each(commands)('%s has a description and a --help', (_name, command) => {
    expect(command.description().length).toBeGreaterThan(10);
    expect(command.helpInformation()).toContain('-h, --help');
  });

  it('takes no password, secret or token as an option value: only where to read one', () => {
    const valued = commands.flatMap(([name, command]) =>
      command.options.filter((option) => /password|secret|token/i.test(option.long ?? '') && (option.required || option.optional)).map((option) => `${name} ${option.long}`),
    );
    expect(valued.every((entry) => entry.endsWith('--password-file'))).toBe(true);
    expect(valued.length).toBeGreaterThan(0);
  });
});
