import fs from 'node:fs';
import path from 'node:path';
import optionsLib = require('../../../scripts/lib/bench-options.cjs');
import servicesLib = require('../../../scripts/lib/services.cjs');

const { parseBenchOptions, BENCHES } = optionsLib;
const parse = (argv: string[], env: Record<string, string> = {}) => {
  const parsed = parseBenchOptions(argv, env);
  if (parsed.help) throw new Error('help');
  return parsed;
};

describe('npm run bench options', () => {
  it('runs every bench on one worker and the dev server by default', () => {
    expect(parse([])).toEqual({ help: false, benches: [], workers: 1, env: {}, temporal: null });
    expect(parse(['due', 'http']).benches).toEqual(['due', 'http']);
  });

  it('takes the workers and the due burst from flags, else from the environment', () => {
    expect(parse(['due', '--workers', '4', '--plans', '200'])).toMatchObject({ workers: 4, env: { BENCH_DUE_PLANS: '200' } });
    expect(parse(['due'], { BENCH_WORKERS: '3', BENCH_DUE_PLANS: '500' })).toMatchObject({ workers: 3, env: { BENCH_DUE_PLANS: '500' } });
    expect(parse(['due', '--workers=2'], { BENCH_WORKERS: '3' }).workers).toBe(2);
  });

  it.each([
    [['--workers', '0'], /--workers must be a whole number from 1 to 64/],
    [['--workers', '65'], /--workers must be a whole number from 1 to 64/],
    [['--workers', '2.5'], /--workers/],
    [['--plans=-1'], /--plans must be a whole number/],
    [['--plans', 'many'], /--plans/],
    [['--temporal-address', 'temporal.example.com'], /--temporal-address must be host:port/],
    [['--temporal-address', 'h:70000'], /host:port/],
    [['--temporal-tls'], /--temporal-tls names a part of a Temporal cluster: give its --temporal-address too/],
    [['--temporal-namespace', 'x'], /give its --temporal-address too/],
    [['--temporal-api-key', 'secret'], /Unknown option '--temporal-api-key'/],
    [['--worker', '2'], /Unknown option '--worker'/],
    [['dew'], /no bench named dew: the benches are http, assets/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseBenchOptions(argv, {})).toThrow(message);
  });

  it('refuses a bad count from the environment, naming the variable', () => {
    expect(() => parseBenchOptions([], { BENCH_WORKERS: 'lots' })).toThrow(/BENCH_WORKERS must be/);
  });

  it('answers --help with the usage, which names every bench and option', () => {
    const help = parseBenchOptions(['due', '--help'], {});
    expect(help.help).toBe(true);
    const usage = (help as { usage: string }).usage;
    for (const bench of BENCHES) expect(usage).toContain(bench);
    for (const flag of ['--workers', '--plans', ...Object.keys(optionsLib.TEMPORAL_FLAGS).map((f) => `--${f}`)]) expect(usage).toContain(flag);
  });

  it("names an operator's cluster with the flags, over their own TEMPORAL_* connection variables", () => {
    const env = {
      TEMPORAL_ADDRESS: 'ignored:7233',
      TEMPORAL_NAMESPACE: 'theirs',
      TEMPORAL_API_KEY: 'key-from-the-environment',
      TEMPORAL_TLS_CA: '/ca.pem',
      TEMPORAL_CALL_DEADLINE_MS: '9000',
      PATH: '/bin',
    };
    const { temporal } = parse(['due', '--temporal-address', 'temporal.internal:7233', '--temporal-tls', '--temporal-tls-server-name', 'temporal.internal'], env);
    expect(temporal).toEqual({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_NAMESPACE: 'theirs',
      TEMPORAL_API_KEY: 'key-from-the-environment',
      TEMPORAL_TLS_CA: '/ca.pem',
      TEMPORAL_TLS: 'true',
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    expect(parse([], { BENCH_TEMPORAL_ADDRESS: '127.0.0.1:17233' }).temporal).toEqual({ TEMPORAL_ADDRESS: '127.0.0.1:17233', TEMPORAL_NAMESPACE: 'default' });
    expect(parse(['--temporal-address', '127.0.0.1:17233', '--temporal-namespace', 'bench']).temporal).toMatchObject({ TEMPORAL_NAMESPACE: 'bench' });
  });

  it("keeps the caller's connection variables from processes of a stack on the dev server, and the project's other TEMPORAL_ settings", () => {
    const env = {
      TEMPORAL_ADDRESS: 'a:1',
      TEMPORAL_TLS: 'true',
      TEMPORAL_TLS_CLIENT_CERT_PATH: '/c',
      TEMPORAL_GRPC_META_X: 'y',
      TEMPORAL_PROFILE: 'p',
      TEMPORAL_CALL_DEADLINE_MS: '9000',
      HOME: '/root',
    };
    expect(servicesLib.withoutTemporalConnection(env)).toEqual({ TEMPORAL_CALL_DEADLINE_MS: '9000', HOME: '/root' });
  });

  it('lists the benches bench/run.ts runs, in its order', () => {
    const source = fs.readFileSync(path.join(__dirname, '../../../bench/run.ts'), 'utf8');
    const names = [...source.matchAll(/^[ \t]*(?:\{ )?name: '([a-z-]+)'/gm)].map((match) => match[1]);
    expect(names).toEqual([...BENCHES]);
  });
});
