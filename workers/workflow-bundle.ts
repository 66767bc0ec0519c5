/**
 * The workflow code as the worker loads it: one webpack bundle of workflows/, built once by
 * `npm run build` (and the test and bench commands) into dist/workflow-bundle*.js, so a worker
 * starts in about a second instead of bundling for several, and every replica of a release runs
 * byte-identical workflow code. Without that file (a plain `tsc`), the worker bundles at start
 * and says so.
 *
 * Run as a script (`node dist/workers/workflow-bundle.js`) it writes the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Logger as TemporalLogger, WorkflowBundleOption } from '@temporalio/worker';
import type { Logger } from 'pino';
import { temporalLoggerFor } from './telemetry';

/**
 * Two variants: plain, and traced (with the OpenTelemetry workflow interceptors, loaded when the
 * worker exports traces, infra/tracing.ts). Interceptors only add headers and spans, never
 * commands, so histories replay under either.
 */
export type WorkflowBundleVariant = 'plain' | 'traced';

const VARIANTS: ReadonlyMap<WorkflowBundleVariant, { file: string; interceptorModules: string[] }> = new Map([
  ['plain', { file: path.resolve(__dirname, '..', 'workflow-bundle.js'), interceptorModules: [] }],
  [
    'traced',
    { file: path.resolve(__dirname, '..', 'workflow-bundle-traced.js'), interceptorModules: [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')] },
  ],
]);

const variant = (name: WorkflowBundleVariant) => VARIANTS.get(name)!;

const bundle = (name: WorkflowBundleVariant, logger: TemporalLogger) =>
  bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), workflowInterceptorModules: variant(name).interceptorModules, logger });

export async function loadWorkflowBundle(name: WorkflowBundleVariant, log: Logger): Promise<WorkflowBundleOption> {
  const { file } = variant(name);
  if (fs.existsSync(file)) return { codePath: file };
  log.warn({ expected: file }, 'no prebuilt workflow bundle (npm run build writes it): bundling at start');
  return bundle(name, temporalLoggerFor(log));
}

async function writeBundles(): Promise<void> {
  for (const [name, { file }] of VARIANTS) {
    // webpack's module listing is noise in a build log; warnings and errors still print.
    const { code } = await bundle(name, new DefaultLogger('WARN'));
    fs.writeFileSync(file, code);
    process.stdout.write(`workflow bundle (${name}): ${path.relative(process.cwd(), file)} (${(code.length / 1024 / 1024).toFixed(1)} MiB)\n`);
  }
}

if (require.main === module) {
  writeBundles().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
