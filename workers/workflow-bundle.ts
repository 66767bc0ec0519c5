/**
 * The workflow code as the worker loads it: one webpack bundle of workflows/, built once by
 * `npm run build` (and the test and bench commands) into dist/workflow-bundle.js, so a worker
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

export const PREBUILT_WORKFLOW_BUNDLE = path.resolve(__dirname, '..', 'workflow-bundle.js');

const bundle = (logger: TemporalLogger) => bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger });

export async function loadWorkflowBundle(log: Logger): Promise<WorkflowBundleOption> {
  if (fs.existsSync(PREBUILT_WORKFLOW_BUNDLE)) return { codePath: PREBUILT_WORKFLOW_BUNDLE };
  log.warn({ expected: PREBUILT_WORKFLOW_BUNDLE }, 'no prebuilt workflow bundle (npm run build writes it): bundling at start');
  return bundle(temporalLoggerFor(log));
}

if (require.main === module) {
  // webpack's module listing is noise in a build log; warnings and errors still print.
  bundle(new DefaultLogger('WARN'))
    .then(({ code }) => {
      fs.writeFileSync(PREBUILT_WORKFLOW_BUNDLE, code);
      process.stdout.write(`workflow bundle: ${path.relative(process.cwd(), PREBUILT_WORKFLOW_BUNDLE)} (${(code.length / 1024 / 1024).toFixed(1)} MiB)\n`);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
