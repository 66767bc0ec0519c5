/**
 * Runs autocannon in its own process, so the load generator does not share the event loop of the
 * servers it measures. Input: one JSON argument {url, path?, connections, duration?, amount?,
 * overallRate?, tokens?}; requests rotate over `tokens` (Bearer). Output: autocannon's result as JSON.
 */
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  path?: string;
  connections: number;
  duration?: number;
  amount?: number;
  overallRate?: number;
  tokens?: string[];
}

const spec = JSON.parse(process.argv[2]) as LoadSpec;
let n = 0;
const tokens = spec.tokens ?? [];
// autocannon refuses options that are present but undefined.
const limits = Object.fromEntries(Object.entries({ duration: spec.duration, amount: spec.amount, overallRate: spec.overallRate }).filter(([, v]) => v !== undefined));
autocannon(
  {
    url: spec.url,
    connections: spec.connections,
    ...limits,
    requests: [
      {
        method: 'GET',
        path: spec.path ?? '/',
        setupRequest: (req: any) => (tokens.length ? { ...req, headers: { ...req.headers, authorization: `Bearer ${tokens[n++ % tokens.length]}` } } : req),
      },
    ],
  },
  (err, result) => {
    if (err) {
      console.error(err);
      process.exit(1);
    }
    process.stdout.write(JSON.stringify(result));
  },
);
