import type { ObjectSchema, Schema } from 'joi';
import type { Knex } from 'knex';
import Joi from '../domain/joi';
import { TenantScope } from '../db/tenant-scope';
import { Permission } from '../domain/auth/permissions';
import { tenantScopeOf, AppContext, userOf } from './context';
import { actorOf, MutationUnit, runMutation } from './mutation';
import { pageOf, pageQuery } from './pagination';
import { mapPage, Page, paginate, PageRequest } from '../db/pagination';
import { ApiRouter, ResponseSpec, RouteSpec } from './route';
import { idRef } from './validation';

type Details = Record<string, unknown>;
type OrderBy = Array<{ column: string; order?: 'asc' | 'desc' }>;

/** What the standard routes of one resource share: where it lives, who may see it, how it is shown. */
export interface Resource<Row extends { id: string }> {
  /** The path of one record relative to the router's prefix, ending in its id: `/surveys/:survey_id`. */
  path: string;
  /** Path parameters (default: the id, a UUID). */
  params?: ObjectSchema;
  tags: string[];
  view: Permission;
  /** Response schema of one record. */
  schema: Schema;
  /** The record in the tenant or 404 (findOr404). */
  find: (scope: TenantScope, id: string) => Promise<Row>;
  /** The record as the API shows it (the GET's view unless it passes its own, and the PUT's answer). */
  present?: (row: Row) => unknown;
  /** What the write routes (update, remove) need; a read-only resource has none. */
  write?: ResourceWrites;
  /**
   * The write routes' permission when the resource's service makes each change whole (lookup,
   * checks, write, audit) and the routes only call it: no `write` then.
   */
  manage?: Permission;
}

export interface ResourceWrites {
  permission: Permission;
  /** Audit action prefix: `<audit>.updated`, `<audit>.deleted`. */
  audit: string;
  /** Audit resource type (default: `audit`). */
  resourceType?: string;
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

export interface CreateHooks<Row, Body> {
  /** Refusals (unknown references, taken names, plan limits) before the insert. */
  check?: (unit: MutationUnit, body: Body) => Promise<void>;
  /** The columns inserted (default: the body as is); the tenant id is added. */
  columns?: (body: Body, ctx: AppContext) => Record<string, unknown>;
  /** Consequences of the insert (events); what it returns is the audit details. */
  after?: (unit: MutationUnit, row: Row, body: Body) => Promise<Details | void> | Details | void;
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

/** A change the resource's service makes whole; the route parses the request, calls it and shapes the answer. */
export type ServiceCreate<Row, Body> = (ctx: AppContext, body: Body) => Promise<Row>;
export type ServiceUpdate<Row, Body> = (ctx: AppContext, id: string, body: Body) => Promise<Row>;
export type ServiceRemove = (ctx: AppContext, id: string) => Promise<void>;

/** Another route on one record: `sub` below the record's path, `access` its view or manage permission. */
export type RecordRoute<P, Q, B> = Omit<RouteSpec<P, Q, B>, 'path' | 'tags' | 'auth' | 'permission' | 'params'> & {
  sub: string;
  access: 'view' | 'manage';
  /** Path parameters when `sub` adds some (default: the resource's). */
  params?: ObjectSchema;
};

const NOT_FOUND: ResponseSpec = { description: 'Not found' };

/** The request's unit of work, acting as its user in the user's tenant. */
export function inUserUnit<T>(ctx: AppContext, work: (unit: MutationUnit) => Promise<T>): Promise<T> {
  return runMutation(ctx, userOf(ctx).tenantId, actorOf(ctx), work);
}

/**
 * A hook's return as audit details: only a plain object counts. A hook written as an expression
 * (`(unit, row) => unit.emit(...)`) returns whatever that call does at runtime, which the type
 * `void` does not stop, and the audit row's details must stay an object.
 */
function detailsOf(value: unknown): Details | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Details) : undefined;
}

/**
 * The standard routes of a resource, declared through `api.route` (so the OpenAPI document,
 * validation, permission and error path are the ordinary ones): GET one record and a page of its
 * rows in a child table, POST (checks, insert, audit `<audit>.created`, 201), a partial PUT
 * (lookup, checks, update, audit `<audit>.updated`) and DELETE (lookup, checks, delete, audit
 * `<audit>.deleted`, 204). What a resource does beyond that stays visible in its hooks.
 */
export function resourceRoutes<Row extends { id: string }>(api: ApiRouter, resource: Resource<Row>) {
  // A read-only resource declares no write fields; declaring a write route without them fails at startup.
  const writable = () => {
    const { write, present } = resource;
    if (!write || !present) throw new Error(`${resource.path}: a write route needs the resource's write and present`);
    return { ...write, manage: write.permission, resourceType: write.resourceType ?? write.audit, present };
  };
  // What a write route calling the service needs: the permission and the record's view.
  const managed = () => {
    const { present } = resource;
    const manage = resource.write?.permission ?? resource.manage;
    if (!manage || !present) throw new Error(`${resource.path}: a write route needs the resource's manage permission and present`);
    return { manage, present };
  };
  const idName = resource.path.slice(resource.path.lastIndexOf(':') + 1);
  const collectionPath = resource.path.slice(0, resource.path.lastIndexOf('/:')) || '/';
  const params = resource.params ?? Joi.object({ [idName]: idRef.required() });
  const common = { path: resource.path, tags: resource.tags, auth: 'user' as const, params };
  const doc = (d: RouteDoc) => ({ summary: d.summary, ...(d.description ? { description: d.description } : {}) });

  return {
    /**
     * GET one record; `view` replaces `present` when the answer needs more than the row. With `sub`
     * (and its `schema`), a view of the record at `<path>/<sub>` (an asset's health).
     */
    get(d: RouteDoc & { found: string; notFound?: string; sub?: string; schema?: Schema }, view?: (row: Row, scope: TenantScope, ctx: AppContext) => Promise<unknown>) {
      const present = resource.present;
      if (!view && !present) throw new Error(`${resource.path}: GET needs the resource's present or a view`);
      api.route<Record<string, string>>({
        method: 'get',
        // A view may do more than read the row; the row's own presentation only reads.
        ...(view ? {} : { readOnly: true as const }),
        ...common,
        ...(d.sub ? { path: `${resource.path}/${d.sub}` } : {}),
        ...doc(d),
        permission: resource.view,
        responses: { 200: { description: d.found, schema: d.schema ?? resource.schema }, 404: d.notFound ? { description: d.notFound } : NOT_FOUND, ...d.responses },
        handler: async (ctx, { params }) => {
          const scope = tenantScopeOf(ctx);
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
        readOnly: true,
        ...common,
        path: `${resource.path}/${d.sub}`,
        ...doc(d),
        permission: resource.view,
        query: Joi.object(pageQuery),
        responses: { 200: { description: d.found, schema: pageOf(d.item) }, 404: NOT_FOUND, ...d.responses },
        handler: async (ctx, { params, query }) => {
          const scope = tenantScopeOf(ctx);
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

    /**
     * GET the collection's path: a page of the tenant's records, oldest first; `match` keeps the
     * records whose column equals the query field of its name, `filter` narrows it otherwise. With
     * `load`, the page is the service's (its order and filters).
     */
    list<Query extends object = object>(
      d: RouteDoc & {
        found: string;
        match?: Record<string, Schema>;
        query?: Record<string, Schema>;
        filter?: (q: Knex.QueryBuilder, query: Query) => void;
        load?: (scope: TenantScope, query: PageRequest & Query) => Promise<Page<Row>>;
      },
    ) {
      const { load } = d;
      const present = resource.present;
      if (!present) throw new Error(`${resource.path}: a list needs the resource's present`);
      // The standard query is built only without `load`: a resource with a service may have no `write`.
      const standard = load ? null : writable();
      api.route<unknown, PageRequest & Query>({
        method: 'get',
        // A service's `load` reads its page too (its order and filters).
        readOnly: true,
        path: collectionPath,
        ...doc(d),
        tags: resource.tags,
        auth: 'user',
        permission: resource.view,
        query: Joi.object({ ...pageQuery, ...d.match, ...d.query }),
        responses: { 200: { description: d.found, schema: pageOf(resource.schema) }, ...d.responses },
        handler: async (ctx, { query }) => {
          if (load) {
            ctx.body = mapPage(await load(tenantScopeOf(ctx), query), present);
            return;
          }
          const { table, columns } = standard!;
          const q = tenantScopeOf(ctx)
            .table(table)
            .select(columns ? [...columns] : '*')
            .orderBy([{ column: 'created_at' }, { column: 'id' }]);
          for (const column of Object.keys(d.match ?? {})) {
            const value = (query as Record<string, unknown>)[column];
            if (value !== undefined) q.where(column, value as string);
          }
          d.filter?.(q, query);
          ctx.body = await paginate(q, query, present);
        },
      });
    },

    /** POST to the collection's path: checks, insert, audit `<audit>.created`, 201 with the record; or the service's create. */
    create<Body extends object>(d: RouteDoc & { created: string; body: Schema }, hooks: CreateHooks<Row, Body> | ServiceCreate<Row, Body> = {}) {
      const { manage, present } = typeof hooks === 'function' ? managed() : writable();
      const insert: ServiceCreate<Row, Body> = typeof hooks === 'function' ? hooks : (ctx, body) => insertAudited(ctx, body, hooks);
      api.route<unknown, unknown, Body>({
        method: 'post',
        path: collectionPath,
        ...doc(d),
        tags: resource.tags,
        auth: 'user',
        permission: manage,
        body: d.body,
        responses: { 201: { description: d.created, schema: resource.schema }, ...d.responses },
        handler: async (ctx, { body }) => {
          const created = await insert(ctx, body);
          ctx.status = 201;
          ctx.body = present(created);
        },
      });
    },

    /** PUT (or `method`): update the fields sent; or the service's update. */
    update<Body extends object>(d: RouteDoc & { updated: string; body: Schema; method?: 'put' | 'patch' }, hooks: UpdateHooks<Row, Body> | ServiceUpdate<Row, Body> = {}) {
      const { manage, present } = typeof hooks === 'function' ? managed() : writable();
      const change: ServiceUpdate<Row, Body> = typeof hooks === 'function' ? hooks : (ctx, id, body) => updateAudited(ctx, id, body, hooks);
      api.route<Record<string, string>, unknown, Body>({
        method: d.method ?? 'put',
        ...common,
        ...doc(d),
        permission: manage,
        body: d.body,
        responses: { 200: { description: d.updated, schema: resource.schema }, 404: NOT_FOUND, ...d.responses },
        handler: async (ctx, { params, body }) => {
          ctx.body = present(await change(ctx, params[idName], body));
        },
      });
    },

    /** DELETE: 204 once the record is gone; or the service's delete. */
    remove<Body extends object = object>(d: RouteDoc & { body?: Schema; removed?: string }, hooks: DeleteHooks<Row, Body> | ServiceRemove = {}) {
      const { manage } = typeof hooks === 'function' ? managed() : writable();
      const drop = typeof hooks === 'function' ? hooks : (ctx: AppContext, id: string, body: Body) => deleteAudited(ctx, id, body, hooks);
      api.route<Record<string, string>, unknown, Body>({
        method: 'delete',
        ...common,
        ...doc(d),
        permission: manage,
        ...(d.body ? { body: d.body } : {}),
        responses: { 204: { description: d.removed ?? 'Deleted' }, 404: NOT_FOUND, ...d.responses },
        handler: async (ctx, { params, body }) => {
          await drop(ctx, params[idName], body);
          ctx.status = 204;
        },
      });
    },

    /** Another route on one record (an action, a view, a page of its history), with the resource's tags, parameters and 404. */
    route<P = Record<string, string>, Q = any, B = any>(spec: RecordRoute<P, Q, B>) {
      const { sub, access, params: own, responses, ...rest } = spec;
      api.route<P, Q, B>({
        ...rest,
        ...common,
        path: `${resource.path}/${sub}`,
        params: own ?? params,
        permission: access === 'view' ? resource.view : managed().manage,
        responses: { 404: NOT_FOUND, ...responses },
      });
    },
  };

  /** The standard insert: checks, insert, audit `<audit>.created`. */
  function insertAudited<Body extends object>(ctx: AppContext, body: Body, hooks: CreateHooks<Row, Body>): Promise<Row> {
    const { audit, resourceType, table, columns } = writable();
    return inUserUnit(ctx, async (unit) => {
      await hooks.check?.(unit, body);
      const [row] = await unit.scope.insert(table, hooks.columns ? hooks.columns(body, ctx) : (body as Record<string, unknown>), columns ? [...columns] : undefined);
      const details = detailsOf(await hooks.after?.(unit, row, body));
      unit.audit({ action: `${audit}.created`, resourceType, resourceId: row.id, ...(details ? { details } : {}) });
      return row as Row;
    });
  }

  /** The standard partial update: lookup, checks, update, audit `<audit>.updated`. */
  function updateAudited<Body extends object>(ctx: AppContext, id: string, body: Body, hooks: UpdateHooks<Row, Body>): Promise<Row> {
    const { audit, resourceType, table, columns } = writable();
    return inUserUnit(ctx, async (unit) => {
      const before = await resource.find(unit.scope, id);
      await hooks.check?.(unit, before, body);
      const [row] = await unit.scope
        .table(table)
        .where('id', before.id)
        .update({ ...(hooks.columns ? hooks.columns(body, before, ctx) : body), updated_at: new Date() })
        .returning(columns ? [...columns] : '*');
      const more = detailsOf(await hooks.after?.(unit, before, row, body)) ?? {};
      const details = hooks.details ? hooks.details(body) : { fields: Object.keys(body) };
      unit.audit({ action: `${audit}.updated`, resourceType, resourceId: before.id, details: { ...details, ...more } });
      return row as Row;
    });
  }

  /** The standard delete: lookup, checks, delete, audit `<audit>.deleted`. */
  function deleteAudited<Body extends object>(ctx: AppContext, id: string, body: Body, hooks: DeleteHooks<Row, Body>): Promise<void> {
    const { audit, resourceType, table } = writable();
    return inUserUnit(ctx, async (unit) => {
      const row = await resource.find(unit.scope, id);
      const details = detailsOf(await hooks.before?.(unit, row, body));
      await unit.scope.table(table).where('id', row.id).delete();
      unit.audit({ action: `${audit}.deleted`, resourceType, resourceId: row.id, ...(details ? { details } : {}) });
      await hooks.after?.(unit, row, ctx);
    });
  }
}
