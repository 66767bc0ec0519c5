import { Db } from '../db/knex';
import { ObjectStore } from '../infra/object-store';
import { createNotificationActivities } from './notifications';
import type { Transporter } from 'nodemailer';

export interface ActivityDeps {
  db: Db;
  objectStore: ObjectStore;
  mailer: Transporter | null;
  mailFrom: string;
}

/** Every activity the worker registers, built from real dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createNotificationActivities({ db: deps.db, mailer: deps.mailer, from: deps.mailFrom }),
  };
}
