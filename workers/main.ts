// First: tracing patches the modules the rest of the imports load.
import { tracing } from './instrumentation';
import { NativeConnection, Worker } from '@temporalio/worker';
import nodemailer from 'nodemailer';
import { createActivities } from '../activities';
import { createSandbox } from '../infra/sandbox/pool';
import { createDb } from '../db/knex';
import { checkAppRoleAtStart } from '../infra/app-role';
import { loadConfig } from '../infra/config';
import { llmProviderFrom } from '../infra/llm';
import { withSendSpans } from '../infra/smtp-tracing';
import { createLogger, exitOnStartFailure } from '../infra/logger';
import { createObjectStore } from '../infra/object-store';
import { TASK_QUEUES } from '../infra/task-queues';
import { createTemporalGateway, ensureSearchAttributes, temporalConnectionOptions } from '../infra/temporal';
import { reconcilePlanWorkflows, reconcileQueuedNotifications, startReadingsCatchUp } from './reconcile';
import { mainQueueActivitySlots, mainQueueLocalActivitySlots, WEBHOOK_WORKER_TUNING, withTestFaults, withTracing, WORKER_INTERCEPTORS, WORKER_TUNING } from './options';
import { installCrashPolicy } from '../infra/crash-policy';
import { startLoopWatchdog } from '../infra/loop-watchdog';
import { ensureWebhookSchedules } from '../orchestration/webhook-schedules';
import { ensureRetentionSchedule } from '../orchestration/privacy';
import { startNotificationDelivery } from '../orchestration/notifications';
import { startWebhookDispatcher } from './webhook-dispatcher';
import { startWebhookReleaser } from './webhook-releaser';
import { releaserSettings } from '../orchestration/webhook-release';
import { StartToAttemptTimes } from '../infra/start-to-attempt';
import { createMetricsRegistry } from '../infra/metrics';
import { withWebhookMetrics } from '../infra/webhook-metrics';
import { startWorkerHttpServer } from './http-server';
import { installWorkerRuntime } from './telemetry';
import { loadWorkflowBundle } from './workflow-bundle';
import { Client } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { workflowSpanSinks } from './workflow-span-sink';

/** How often the worker looks for condition and predictive plans behind on their readings. */
const READINGS_CATCH_UP_MS = 60_000;
/**
 * After a crash, the bound on the drain: WORKER_TUNING's shutdownGraceTime (10 s) for the running
 * activities, then the connections and pools close; a drain past this exits at once.
 */
const CRASH_DRAIN_MS = 30_000;

async function main(): Promise<void> {
  // A stop requested while the worker is still starting (bundling takes seconds) must not be lost.
  let stopRequested = false;
  let stop: () => void = () => {
    stopRequested = true;
  };
  process.once('SIGINT', () => stop());
  process.once('SIGTERM', () => stop());
  const config = loadConfig();
  const log = createLogger(config.logLevel, { component: 'worker' });
  // Start/stop lines always print: process supervisors wait for them whatever LOG_LEVEL says.
  const lifecycle = createLogger('info', { component: 'worker' });
  // Before any native connection: the SDK's logs and metrics go where this process's go.
  const { sdkMetricsUrl } = await installWorkerRuntime(log);
  const db = createDb(config.databaseUrl, { min: 0, max: config.databasePoolMax });
  // Before any workflow or activity runs: a production worker on a privileged database role stops here.
  await checkAppRoleAtStart(db, config.appEnv, 'worker', lifecycle);
  const objectStore = createObjectStore(config.s3);
  await objectStore.ensureBucket();

  // One client connection for the worker's whole life: search attributes, schedules, reconcilers, dispatcher.
  const temporal = createTemporalGateway(config.temporal);
  if (config.temporal.registerSearchAttributes) {
    const added = await ensureSearchAttributes((await temporal.client()).connection, config.temporal.namespace);
    if (added === 'refused')
      log.warn('the namespace refused to register search attributes: register TenantId, ResourceId, PlanId and WebhookId once, then set TEMPORAL_REGISTER_SEARCH_ATTRIBUTES=false');
    else if (added.length > 0) log.info({ added }, 'registered search attributes');
  }

  const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  const mailer = config.smtp.url ? withSendSpans(nodemailer.createTransport(config.smtp.url)) : null;
  // One bundle for both workers, prebuilt by `npm run build` (workers/workflow-bundle.ts).
  const workflowBundle = await loadWorkflowBundle(tracing ? 'traced' : 'plain', log);
  const interceptors = withTestFaults(tracing ? withTracing(WORKER_INTERCEPTORS) : WORKER_INTERCEPTORS, config.testFaults);
  const sinks = tracing ? workflowSpanSinks(tracing.spanProcessor, tracing.resource) : undefined;
  // The dispatcher below starts deliveries eagerly onto this process's webhook worker; both see one measure of how responsive it is.
  const startToAttempt = new StartToAttemptTimes();
  const sandbox = createSandbox('worker', config.sandbox, log);
  const activities = createActivities({
    db,
    objectStore,
    mailer,
    mailFrom: config.smtp.from,
    dataEncryptionKey: config.secrets.dataEncryptionKey,
    allowPrivateWebhookDestinations: config.webhooks.allowPrivateDestinations,
    startNotification: (tenantId, notificationId) => startNotificationDelivery(temporal, tenantId, notificationId),
    whatsappApiBaseUrl: config.whatsapp.apiBaseUrl,
    llm: llmProviderFrom(config.llm),
    planModels: config.llm.planModels,
    sandbox,

    outbound: config.outbound,
    startToAttempt,
  });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: TASK_QUEUES.main,
    workflowBundle,
    activities,
    interceptors,
    sinks,
    ...WORKER_TUNING,
    maxConcurrentActivityTaskExecutions: mainQueueActivitySlots(config.databasePoolMax),
    maxConcurrentLocalActivityExecutions: mainQueueLocalActivitySlots(config.databasePoolMax),
  });
  // Webhook deliveries on their own queue and slots: a burst of them never delays other work.
  const webhookWorker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: TASK_QUEUES.webhooks,
    workflowBundle,
    activities,
    interceptors,
    sinks,
    ...WEBHOOK_WORKER_TUNING,
  });

  // worker.shutdown(): no new tasks are polled, and the activities running get WORKER_TUNING's
  // shutdownGraceTime to finish before they are cancelled; run() resolves once they are done.
  stop = () => {
    lifecycle.info('worker stopping');
    for (const w of [worker, webhookWorker]) if (w.getState() === 'RUNNING') w.shutdown();
  };

  const running = Promise.all([worker.run(), webhookWorker.run()]);
  if (stopRequested) stop();
  // A crash stops polling (readiness fails with it), lets the running activities finish, and exits non-zero.
  installCrashPolicy({
    component: 'worker',
    log: lifecycle,
    stop(exitCode) {
      process.exitCode = exitCode;
      setTimeout(() => process.exit(exitCode), CRASH_DRAIN_MS).unref();
      stop();
    },
  });
  await ensureWebhookSchedules(await temporal.client());
  await ensureRetentionSchedule(await temporal.client());
  // On the webhook worker's own connection, so its starts are eager (workers/options.ts).
  const eagerClient = new Client({ connection, namespace: config.temporal.namespace, interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } });
  const dispatcher = startWebhookDispatcher({ db, databaseUrl: config.databaseUrl, temporal, eagerClient, startToAttempt, log });
  const releaser = startWebhookReleaser({ db, temporal, log, settings: releaserSettings(config.outbound) });
  const httpServer = await startWorkerHttpServer({
    ...config.workerHttp,
    registry: withWebhookMetrics(createMetricsRegistry()),
    sdkMetricsUrl,
    metricsToken: config.metricsToken,
    // Polling, that is all: a dependency down for every replica at once is no reason to take
    // them all out (a Deployment's rollout and its PodDisruptionBudget count ready pods).
    notReady() {
      const polling = [worker, webhookWorker].every((w) => w.getState() === 'RUNNING');
      return Promise.resolve(polling ? [] : ['workers']);
    },
  });
  lifecycle.info({ taskQueue: TASK_QUEUES.main, namespace: config.temporal.namespace, probes: httpServer.url }, 'worker ready');
  const watchdog = startLoopWatchdog({ component: 'worker', stallLimitMs: config.process.stallLimitMs });
  await reconcileQueuedNotifications(db, temporal, log);
  await reconcilePlanWorkflows(db, temporal, log).catch((err) => log.error({ err }, 'maintenance plan reconciliation failed'));
  // Condition and predictive plans whose readings signal was lost catch up within a minute.
  const catchUp = startReadingsCatchUp(db, temporal, log, READINGS_CATCH_UP_MS);
  try {
    await running;
  } finally {
    catchUp.stop();
    await watchdog.stop();
    sandbox.close();
    await dispatcher.stop();
    await releaser.stop();
    await httpServer.close();
    await tracing?.shutdown();
    await temporal.close();
    await connection.close();
    await db.destroy();
    lifecycle.info({ exit_code: process.exitCode ?? 0 }, 'worker stopped');
  }
}

main().catch((err) => exitOnStartFailure('worker', err));
