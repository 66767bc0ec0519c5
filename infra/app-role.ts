/**
 * What the app's database role may do at start (db/roles.ts `appRoleProblems`: superuser,
 * CREATEROLE, BYPASSRLS, owner of tables). In production such a role is refused: the process logs
 * one line naming the problems and exits 1 before it serves anything, since with it the row-level
 * security, the audit trail's guard and the role separation hold nothing. In development and the
 * tests, which may run on one URL (the app migrating as itself), it is a warning, in the
 * background. A database that does not answer within FIRST_CHECK_MS does not hold the start (the
 * probes say it is down); production asks again until it answers.
 */
import type { Queryable } from '../db/knex';
import { appRoleProblems } from '../db/roles';
import type { AppEnv } from './config';
import { exitOnStartFailure, StartRefused } from './logger';
import { withTimeout } from './object-store';

const FIRST_CHECK_MS = 5_000;
const RETRY_MS = 5_000;
const REMEDY = 'connect the app as a role that owns nothing (DATABASE_MIGRATION_URL for the migrations)';

type Log = { warn(obj: object, msg: string): void };

export async function checkAppRoleAtStart(db: Queryable, appEnv: AppEnv, component: string, log: Log): Promise<void> {
  if (appEnv !== 'production') {
    void appRoleProblems(db)
      .then((problems) => problems.length > 0 && log.warn({ problems }, `DATABASE_URL connects as a privileged role: ${REMEDY}`))
      .catch(() => undefined);
    return;
  }
  await refuseIfPrivileged(db, component, withTimeout(appRoleProblems(db), FIRST_CHECK_MS, 'the database did not answer'));
}

async function refuseIfPrivileged(db: Queryable, component: string, check: Promise<string[]>): Promise<void> {
  const problems = await check.catch(() => null);
  if (problems === null) {
    setTimeout(() => void refuseIfPrivileged(db, component, appRoleProblems(db)), RETRY_MS).unref();
    return;
  }
  if (problems.length > 0) exitOnStartFailure(component, new StartRefused(`DATABASE_URL connects as a privileged role: ${REMEDY}`, problems));
}
