import type { ObjectSchema, Schema } from 'joi';
import { tenantScope, TenantScope } from '../db/tenant-scope';
import { Permission } from '../domain/auth/permissions';
import { AppContext, userOf } from './context';
import { actorOf, MutationUnit, runMutation } from './mutation';
import { ApiRouter, ResponseSpec } from './route';

type Details = Record<string, unknown>;

/** What the standard routes of one resource share: where it lives, who may see or change it, how it is shown. */
export interface Resource<Row extends { id: string }> {
  /** The path of one record relative to the router's prefix, ending in its id: `/surveys/:survey_id`. */
  path: string;
  params: ObjectSchema;
  tags: string[];
  view: Permission;
  manage: Permission;
  /** Response schema of one record. */
  schema: Schema;
  /** The record in the tenant or 404 (findOr404). */
  find: (scope: TenantScope, id: string) => Promise<Row>;
  present: (row: Row) => unknown;
  /** Audit names: `<audit>.updated` / `<audit>.deleted` on resource type `resourceType`. */
  audit: string;
  resourceType: string;
  table: string;
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
  /** Refuses the delete (in use) or prepares it (detaches dependants); what it returns joins the audit details. */
  check?: (unit: MutationUnit, row: Row, body: Body) => Promise<Details | void>;
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
  const idName = resource.path.slice(resource.path.lastIndexOf(':') + 1);
  const common = { path: resource.path, tags: resource.tags, auth: 'user' as const, params: resource.params };
  const doc = (d: RouteDoc) => ({ summary: d.summary, ...(d.description ? { description: d.description } : {}) });

  return {
    /** GET one record; `present` replaces the resource's mapper when the view needs more than the row. */
    get(d: RouteDoc & { found: string; notFound?: string }, present?: (row: Row, scope: TenantScope, ctx: AppContext) => Promise<unknown>) {
      api.route<Record<string, string>>({
        method: 'get',
        ...common,
        ...doc(d),
        permission: resource.view,
        responses: { 200: { description: d.found, schema: resource.schema }, 404: d.notFound ? { description: d.notFound } : NOT_FOUND, ...d.responses },
        handler: async (ctx, { params }) => {
          const scope = tenantScope(ctx.deps.db, userOf(ctx).tenantId);
          const row = await resource.find(scope, params[idName]);
          ctx.body = present ? await present(row, scope, ctx) : resource.present(row);
        },
      });
    },

    /** PUT: update the fields sent. */
    update<Body extends object>(d: RouteDoc & { updated: string; body: Schema }, hooks: UpdateHooks<Row, Body> = {}) {
      api.route<Record<string, string>, unknown, Body>({
        method: 'put',
        ...common,
        ...doc(d),
        permission: resource.manage,
        body: d.body,
        responses: { 200: { description: d.updated, schema: resource.schema }, 404: NOT_FOUND, ...d.responses },
        handler: async (ctx, { params, body }) => {
          const updated = await runMutation(ctx, userOf(ctx).tenantId, actorOf(ctx), async (unit) => {
            const before = await resource.find(unit.scope, params[idName]);
            await hooks.check?.(unit, before, body);
            const [row] = await unit.scope
              .table(resource.table)
              .where('id', before.id)
              .update({ ...(hooks.columns ? hooks.columns(body, before, ctx) : body), updated_at: new Date() })
              .returning(resource.columns ? [...resource.columns] : '*');
            const more = (await hooks.after?.(unit, before, row, body)) ?? {};
            const details = hooks.details ? hooks.details(body) : { fields: Object.keys(body) };
            unit.audit({ action: `${resource.audit}.updated`, resourceType: resource.resourceType, resourceId: before.id, details: { ...details, ...more } });
            return row as Row;
          });
          ctx.body = resource.present(updated);
        },
      });
    },

    /** DELETE: 204 once the record is gone. */
    remove<Body extends object = object>(d: RouteDoc & { body?: Schema }, hooks: DeleteHooks<Row, Body> = {}) {
      api.route<Record<string, string>, unknown, Body>({
        method: 'delete',
        ...common,
        ...doc(d),
        permission: resource.manage,
        ...(d.body ? { body: d.body } : {}),
        responses: { 204: { description: 'Deleted' }, 404: NOT_FOUND, ...d.responses },
        handler: async (ctx, { params, body }) => {
          await runMutation(ctx, userOf(ctx).tenantId, actorOf(ctx), async (unit) => {
            const row = await resource.find(unit.scope, params[idName]);
            const details = (await hooks.check?.(unit, row, body)) ?? undefined;
            await unit.scope.table(resource.table).where('id', row.id).delete();
            unit.audit({ action: `${resource.audit}.deleted`, resourceType: resource.resourceType, resourceId: row.id, ...(details ? { details } : {}) });
            await hooks.after?.(unit, row, ctx);
          });
          ctx.status = 204;
        },
      });
    },
  };
}
