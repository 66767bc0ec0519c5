import { Db } from '../db/knex';
import { ObjectStore } from '../infra/object-store';
import { createMaintenanceActivities } from './maintenance';
import { createNotificationActivities } from './notifications';
import { createWebhookDeliveryActivities } from './webhooks/deliver';
import { createWebhookHealthActivities } from './webhooks/health';
import type { Transporter } from 'nodemailer';

export interface ActivityDeps {
  db: Db;
  objectStore: ObjectStore;
  mailer: Transporter | null;
  mailFrom: string;
  /** DATA_ENCRYPTION_KEY: decrypts webhook signing secrets. */
  dataEncryptionKey: Buffer;
  /** Development setting WEBHOOK_ALLOW_PRIVATE_DESTINATIONS. */
  allowPrivateWebhookDestinations: boolean;
}

/** Every activity the worker registers, built from real dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createNotificationActivities({ db: deps.db, mailer: deps.mailer, from: deps.mailFrom }),
    ...createWebhookDeliveryActivities({ db: deps.db, dataEncryptionKey: deps.dataEncryptionKey, allowPrivateDestinations: deps.allowPrivateWebhookDestinations }),
    ...createWebhookHealthActivities({ db: deps.db }),
    ...createMaintenanceActivities({ db: deps.db }),
  };
}
