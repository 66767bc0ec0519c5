import { Actor } from '../db/audit';
import { runUnit, type Unit, type UnitAudit, type UnitContext, type UserUnitContext } from '../db/unit-of-work';
import { AppContext, userOf } from './context';

/** A route's unit of work (db/unit-of-work.ts), under the names the routes use. */
export type MutationUnit = Unit;
export type MutationAudit = UnitAudit;

/** The unit of work of a mutating request: the request's id goes into the audit row. */
export function runMutation<T>(ctx: AppContext, tenantId: string, actor: Actor, work: (unit: MutationUnit) => Promise<T>): Promise<T> {
  return runUnit(ctx.deps.db, { tenantId, actor, requestId: ctx.state.requestId }, work);
}

/** Who acts, for which tenant, in which request: for a service that runs its own units (work around the transaction). */
export function unitContextOf(ctx: AppContext, tenantId: string): UnitContext {
  return { tenantId, actor: actorOf(ctx), requestId: ctx.state.requestId };
}

/** The signed-in user's unit context, for a service that records the user on its rows. */
export function userUnitContextOf(ctx: AppContext): UserUnitContext {
  const { tenantId, userId } = userOf(ctx);
  return { ...unitContextOf(ctx, tenantId), userId };
}

/** The acting principal of a request, as the audit trail records it. */
export function actorOf(ctx: AppContext): Actor {
  const p = ctx.state.principal;
  if (p?.kind === 'user') return { type: 'user', id: p.userId };
  if (p?.kind === 'service') return { type: 'service', id: p.serviceId };
  return { type: 'system', id: null };
}
