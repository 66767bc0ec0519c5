import { NativeConnection, Worker } from '@temporalio/worker';
import nodemailer from 'nodemailer';
import { createActivities } from '../activities';
import { createDb } from '../db/knex';
import { loadConfig } from '../infra/config';
import { createLogger } from '../infra/logger';
import { createObjectStore } from '../infra/object-store';
import { TASK_QUEUES } from '../infra/task-queues';
import { createTemporalGateway, ensureSearchAttributes } from '../infra/temporal';
import { Connection } from '@temporalio/client';
import { reconcileQueuedNotifications } from './reconcile';
import { WORKER_TUNING } from './options';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, { component: 'worker' });
  // Start/stop lines always print: process supervisors wait for them whatever LOG_LEVEL says.
  const lifecycle = createLogger('info', { component: 'worker' });
  const db = createDb(config.databaseUrl, { min: 0, max: 20 });
  const objectStore = createObjectStore(config.s3);
  await objectStore.ensureBucket();

  const clientConnection = await Connection.connect({ address: config.temporal.address });
  const added = await ensureSearchAttributes(clientConnection, config.temporal.namespace);
  if (added.length > 0) log.info({ added }, 'registered search attributes');
  await clientConnection.close();

  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const mailer = config.smtp.url ? nodemailer.createTransport(config.smtp.url) : null;
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: TASK_QUEUES.main,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities({ db, objectStore, mailer, mailFrom: config.smtp.from }),
    ...WORKER_TUNING,
  });

  const temporal = createTemporalGateway(config.temporal.address, config.temporal.namespace);
  const shutdown = () => worker.shutdown();
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  const running = worker.run();
  lifecycle.info({ taskQueue: TASK_QUEUES.main, namespace: config.temporal.namespace }, 'worker ready');
  await reconcileQueuedNotifications(db, temporal, log);
  try {
    await running;
  } finally {
    await temporal.close();
    await connection.close();
    await db.destroy();
    lifecycle.info('worker stopped');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
