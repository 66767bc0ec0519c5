import type { ObjectSchema, Schema } from 'joi';
import Joi from '../domain/joi';
import { tenantScope, TenantScope } from '../db/tenant-scope';
import { Permission } from '../domain/auth/permissions';
import { AppContext, userOf } from './context';
import { actorOf, MutationUnit, runMutation } from './mutation';
import { pageOf, pageQuery, paginate, PageRequest } from './pagination';
import { ApiRouter, ResponseSpec } from './route';

type Details = Record<string, unknown>;
type OrderBy = Array<{ column: string; order?: 'asc' | 'desc' }>;

/** What the standard routes of one resource share: where it lives, who may see or change it, how it is shown. */
export interface Resource<Row extends { id: string }> {
  /** The path of one record relative to the router's prefix, ending in its id: `/surveys/:survey_id`. */
  path: string;
  params: ObjectSchema;
  tags: string[];
  view: Permission;
  /** The write routes' permission (update, remove). */
  manage?: Permission;
  /** Response schema of one record. */
  schema: Schema;
  /** The record in the tenant or 404 (findOr404). */
  find: (scope: TenantScope, id: string) => Promise<Row>;
  /** The record as the API shows it (the GET's view unless it passes its own, and the PUT's answer). */
  present?: (row: Row) => unknown;
  /** Audit names: `<audit>.updated` / `<audit>.deleted` on resource type `resourceType`. */
  audit?: string;
  resourceType?: string;
  table?: string;
  /** Columns the standard update returns (default all). */
  columns?: readonly string[];
}

/** What OpenAPI says of a route: its summary and description, and the codes beyond the standard ones. */
export interface RouteDoc {
  summary: string;
  description?: string;
  responses?: Record<number, ResponseSpec>;
}

export interface UpdateHooks<Row, Body> {
  /** Refusals (unknown references, taken names, state rules) after the lookup, before the write. */
  check?: (unit: MutationUnit, before: Row, body: Body) => Promise<void>;
  /** The columns written (default: the body as is); `updated_at` is added. */
  columns?: (body: Body, before: Row, ctx: AppContext) => Record<string, unknown>;
  /** Consequences of the write (events, propagation); what it returns joins the audit details. */
  after?: (unit: MutationUnit, before: Row, row: Row, body: Body) => Promise<Details | void>;
  /** The audit details of the change (default `{fields: <keys of the body>}`). */
  details?: (body: Body) => Details;
}

export interface DeleteHooks<Row, Body> {
  /** After the lookup, before the delete: refuses it (in use) or prepares it (detaches dependants); what it returns joins the audit details. */
  before?: (unit: MutationUnit, row: Row, body: Body) => Promise<Details | void>;
  /** Consequences once the row is gone (events, the object in the store); runs inside the unit. */
  after?: (unit: MutationUnit, row: Row, ctx: AppContext) => Promise<void> | void;
}

const NOT_FOUND: ResponseSpec = { description: 'Not found' };

/**
 * The standard routes of a resource, declared through `api.route` (so the OpenAPI document,
 * validation, permission and error path are the ordinary ones): GET one record, a partial PUT
 * (lookup, checks, update, audit `<audit>.updated`) and DELETE (lookup, checks, delete, audit
 * `<audit>.deleted`, 204). What a resource does beyond that stays visible in its hooks.
 */
export function resourceRoutes<Row extends { id: string }>(api: ApiRouter, resource: Resource<Row>) {
  // A read-only resource declares no write fields; declaring a write route without them fails at startup.
  const writable = () => {
    const { manage, audit, resourceType, table, present } = resource;
    if (!manage || !audit || !resourceType || !table || !present) throw new Error(`${resource.path}: a write route needs manage, audit, resourceType, table and present`);
    return { manage, audit, resourceType, table, present };
  };
  const idName = resource.path.slice(resource.path.lastIndexOf(':') + 1);
  const common = { path: resource.path, tags: resource.tags, auth: 'user' as const, params: resource.params };
  const doc = (d: RouteDoc) => ({ summary: d.summary, ...(d.description ? { description: d.description } : {}) });

  return {
    /** GET one record; `view` replaces `present` when the answer needs more than the row. */
    get(d: RouteDoc & { found: string; notFound?: string }, view?: (row: Row, scope: TenantScope, ctx: AppContext) => Promise<unknown>) {
      const present = resource.present;
      if (!view && !present) throw new Error(`${resource.path}: GET needs the resource's present or a view`);
      api.route<Record<string, string>>({
        method: 'get',
        ...common,
        ...doc(d),
        permission: resource.view,
        responses: { 200: { description: d.found, schema: resource.schema }, 404: d.notFound ? { description: d.notFound } : NOT_FOUND, ...d.responses },
        handler: async (ctx, { params }) => {
          const scope = tenantScope(ctx.deps.db, userOf(ctx).tenantId);
          const row = await resource.find(scope, params[idName]);
          ctx.body = view ? await view(row, scope, ctx) : present!(row);
        },
      });
    },

    /** GET a page of the record's rows in a child table (`<path>/<sub>`); 404 when the record is not found. */
    children<Child>(
      d: RouteDoc & { sub: string; found: string; item: Schema; table: string; foreignKey: string; columns: readonly string[]; orderBy: OrderBy; present: (row: Child) => unknown },
    ) {
      api.route<Record<string, string>, PageRequest>({
        method: 'get',
        ...common,
        path: `${resource.path}/${d.sub}`,
        ...doc(d),
        permission: resource.view,
        query: Joi.object(pageQuery),
        responses: { 200: { description: d.found, schema: pageOf(d.item) }, 404: NOT_FOUND, ...d.responses },
        handler: async (ctx, { params, query }) => {
          const scope = tenantScope(ctx.deps.db, userOf(ctx).tenantId);
          const row = await resource.find(scope, params[idName]);
          const q = scope
            .table(d.table)
            .where(d.foreignKey, row.id)
            .select([...d.columns])
            .orderBy(d.orderBy);
          ctx.body = await paginate(q, query, d.present);
        },
      });
    },

    /** PUT: update the fields sent. */
    update<Body extends object>(d: RouteDoc & { updated: string; body: Schema }, hooks: UpdateHooks<Row, Body> = {}) {
      const { manage, audit, resourceType, table, present } = writable();
      api.route<Record<string, string>, unknown, Body>({
        method: 'put',
        ...common,
        ...doc(d),
        permission: manage,
        body: d.body,
        responses: { 200: { description: d.updated, schema: resource.schema }, 404: NOT_FOUND, ...d.responses },
        handler: async (ctx, { params, body }) => {
          const updated = await runMutation(ctx, userOf(ctx).tenantId, actorOf(ctx), async (unit) => {
            const before = await resource.find(unit.scope, params[idName]);
            await hooks.check?.(unit, before, body);
            const [row] = await unit.scope
              .table(table)
              .where('id', before.id)
              .update({ ...(hooks.columns ? hooks.columns(body, before, ctx) : body), updated_at: new Date() })
              .returning(resource.columns ? [...resource.columns] : '*');
            const more = (await hooks.after?.(unit, before, row, body)) ?? {};
            const details = hooks.details ? hooks.details(body) : { fields: Object.keys(body) };
            unit.audit({ action: `${audit}.updated`, resourceType, resourceId: before.id, details: { ...details, ...more } });
            return row as Row;
          });
          ctx.body = present(updated);
        },
      });
    },

    /** DELETE: 204 once the record is gone. */
    remove<Body extends object = object>(d: RouteDoc & { body?: Schema }, hooks: DeleteHooks<Row, Body> = {}) {
      const { manage, audit, resourceType, table } = writable();
      api.route<Record<string, string>, unknown, Body>({
        method: 'delete',
        ...common,
        ...doc(d),
        permission: manage,
        ...(d.body ? { body: d.body } : {}),
        responses: { 204: { description: 'Deleted' }, 404: NOT_FOUND, ...d.responses },
        handler: async (ctx, { params, body }) => {
          await runMutation(ctx, userOf(ctx).tenantId, actorOf(ctx), async (unit) => {
            const row = await resource.find(unit.scope, params[idName]);
            const details = (await hooks.before?.(unit, row, body)) ?? undefined;
            await unit.scope.table(table).where('id', row.id).delete();
            unit.audit({ action: `${audit}.deleted`, resourceType, resourceId: row.id, ...(details ? { details } : {}) });
            await hooks.after?.(unit, row, ctx);
          });
          ctx.status = 204;
        },
      });
    },
  };
}
