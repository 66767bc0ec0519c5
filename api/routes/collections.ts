import Joi from '../../domain/joi';
import type { Schema } from 'joi';
import {
  COLLECTION_COLUMNS,
  COLLECTION_ITEM_COLUMNS,
  COLLECTION_ITEM_TYPES,
  collectionById,
  collectionItemExists,
  CollectionItemRow,
  CollectionItemType,
  CollectionRow,
  liveItemsOf,
} from '../../db/queries/collections';
import { isUuid, TenantScope } from '../../db/tenant-scope';
import { tenantScopeOf, userOf } from '../context';
import { conflict, notFound, validationError } from '../../domain/errors';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, pageOf } from '../pagination';
import { paginate, PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { idRef } from '../validation';
import { findOr404 } from '../../db/find-or-404';
import { resourceRoutes } from '../resource-routes';

const collectionSchema = Joi.object({
  id: Joi.string().uuid(),
  name: Joi.string(),
  description: Joi.string().allow(null),
  agent_id: Joi.string().uuid().allow(null).description('The agent whose knowledge the collection is, if any'),
  created_at: Joi.string().isoDate(),
  updated_at: Joi.string().isoDate(),
});
const itemSchema = Joi.object({
  id: Joi.string().uuid(),
  item_type: Joi.string().valid(...COLLECTION_ITEM_TYPES),
  item_id: Joi.string().uuid(),
  added_by: Joi.string().uuid().allow(null),
  added_at: Joi.string().isoDate(),
});
const page = (item: Schema) => pageOf(item);

const toCollection = (row: CollectionRow) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  agent_id: row.agent_id,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});
const toItem = (row: CollectionItemRow) => ({
  id: row.id,
  item_type: row.item_type,
  item_id: row.item_id,
  added_by: row.added_by,
  added_at: row.added_at.toISOString(),
});

const fields = {
  name: Joi.string().trim().min(1).max(200),
  description: Joi.string().trim().max(2000).allow(null, ''),
  agent_id: idRef.allow(null),
};
type CollectionBody = { name?: string; description?: string | null; agent_id?: string | null };

const collectionParams = Joi.object({ collection_id: idRef.required() });
const itemParams = Joi.object({ collection_id: idRef.required(), item_id: idRef.required() });

function requireCollection(scope: TenantScope, id: string): Promise<CollectionRow> {
  return findOr404('collection', id, () => collectionById(scope, id));
}

const unknownReference = (field: string, what: string) =>
  validationError(`${field} does not name ${what} of this tenant`, [{ field: `body.${field}`, message: `unknown ${what}`, type: 'any.unknown_reference' }]);

/** Checks the fields that reference or must be unique, inside the writing transaction. */
async function checkCollectionBody(scope: TenantScope, body: CollectionBody, exceptId?: string): Promise<void> {
  if (body.agent_id && !(isUuid(body.agent_id) && (await scope.table('agents').where('id', body.agent_id).first('id')))) {
    throw unknownReference('agent_id', 'an agent');
  }
  if (body.name !== undefined) {
    const clash = scope.table('collections').where('name', body.name).first('id');
    if (exceptId) clash.whereNot('id', exceptId);
    if (await clash) throw conflict(`a collection named "${body.name}" exists`);
  }
}

const columnsOf = (body: CollectionBody) => ({
  ...body,
  ...(body.description !== undefined ? { description: body.description || null } : {}),
});

export function collectionRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/collections');

  const collection = resourceRoutes(api, {
    path: '/:collection_id',
    tags: ['collections'],
    view: 'view_files',
    schema: collectionSchema,
    find: requireCollection,
    present: toCollection,
    write: { permission: 'manage_files', audit: 'collection', table: 'collections', columns: COLLECTION_COLUMNS },
  });
  collection.list<{ agent_id?: string }>({
    summary: 'List collections',
    found: 'A page of collections',
    query: { agent_id: idRef },
    filter: (q, query) => {
      if (query.agent_id) {
        if (isUuid(query.agent_id)) q.where('agent_id', query.agent_id);
        else q.whereRaw('false');
      }
    },
  });
  collection.create<CollectionBody>(
    {
      summary: 'Create a collection',
      body: Joi.object({ ...fields, name: fields.name.required() }),
      created: 'Created collection',
      responses: { 409: { description: 'Name taken' } },
    },
    { check: (unit, body) => checkCollectionBody(unit.scope, body), columns: columnsOf },
  );
  collection.get({ summary: 'Get a collection', found: 'Collection' });
  collection.update<CollectionBody>(
    {
      summary: 'Update the fields sent; omitted fields keep their values',
      body: Joi.object(fields).min(1),
      updated: 'Updated collection',
      responses: { 409: { description: 'Name taken' } },
    },
    { check: (unit, before, body) => checkCollectionBody(unit.scope, body, before.id), columns: columnsOf },
  );
  collection.remove({ summary: 'Delete a collection and its memberships (the items themselves stay)' });

  api.route<{ collection_id: string }, PageRequest & { item_type?: CollectionItemType }>({
    method: 'get',
    path: '/:collection_id/items',
    summary: "List a collection's items",
    tags: ['collections'],
    auth: 'user',
    permission: 'view_files',
    params: collectionParams,
    query: Joi.object({ ...pageQuery, item_type: Joi.string().valid(...COLLECTION_ITEM_TYPES) }),
    responses: { 200: { description: 'A page of items', schema: page(itemSchema) }, 404: { description: 'Not found' } },
    handler: async (ctx, { params, query }) => {
      const scope = tenantScopeOf(ctx);
      const collection = await requireCollection(scope, params.collection_id);
      const q = liveItemsOf(scope, collection.id)
        .select([...COLLECTION_ITEM_COLUMNS])
        .orderBy([{ column: 'added_at' }, { column: 'id' }]);
      if (query.item_type) q.where('item_type', query.item_type);
      ctx.body = await paginate(q, query, toItem);
    },
  });

  api.route<{ collection_id: string }, unknown, { item_type: CollectionItemType; item_id: string }>({
    method: 'post',
    path: '/:collection_id/items',
    summary: 'Add a file or an extracted record to a collection',
    tags: ['collections'],
    auth: 'user',
    permission: 'manage_files',
    params: collectionParams,
    body: Joi.object({
      item_type: Joi.string()
        .valid(...COLLECTION_ITEM_TYPES)
        .required(),
      item_id: idRef.required(),
    }),
    responses: {
      201: { description: 'Membership', schema: itemSchema },
      404: { description: 'Collection not found' },
      409: { description: 'Already in the collection' },
      422: { description: 'The item does not exist in this tenant' },
    },
    handler: async (ctx, { params, body }) => {
      const { tenantId, userId } = userOf(ctx);
      const created = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const collection = await requireCollection(unit.scope, params.collection_id);
        if (!(isUuid(body.item_id) && (await collectionItemExists(unit.scope, body.item_type, body.item_id)))) {
          throw unknownReference('item_id', body.item_type === 'file' ? 'a file' : 'an extracted record');
        }
        const [row] = await unit.scope.db
          .raw(
            `insert into collection_items (tenant_id, collection_id, item_type, item_id, added_by) values (?, ?, ?, ?, ?)
           on conflict (collection_id, item_type, item_id) do nothing returning ${COLLECTION_ITEM_COLUMNS.join(', ')}`,
            [tenantId, collection.id, body.item_type, body.item_id, userId],
          )
          .then((r: { rows: CollectionItemRow[] }) => r.rows);
        if (!row) throw conflict('the item is already in the collection');
        unit.audit({ action: 'collection.item_added', resourceType: 'collection', resourceId: collection.id, details: { item_type: body.item_type, item_id: body.item_id } });
        return row;
      });
      ctx.status = 201;
      ctx.body = toItem(created);
    },
  });

  api.route<{ collection_id: string; item_id: string }>({
    method: 'delete',
    path: '/:collection_id/items/:item_id',
    summary: 'Remove an item from a collection (the item itself stays)',
    tags: ['collections'],
    auth: 'user',
    permission: 'manage_files',
    params: itemParams,
    responses: { 204: { description: 'Removed' }, 404: { description: 'Collection not found or item not in it' } },
    handler: async (ctx, { params }) => {
      await runMutation(ctx, userOf(ctx).tenantId, actorOf(ctx), async (unit) => {
        const collection = await requireCollection(unit.scope, params.collection_id);
        const removed = isUuid(params.item_id) ? await unit.scope.table('collection_items').where({ collection_id: collection.id, item_id: params.item_id }).delete() : 0;
        if (removed === 0) throw notFound('collection item');
        unit.audit({ action: 'collection.item_removed', resourceType: 'collection', resourceId: collection.id, details: { item_id: params.item_id } });
      });
      ctx.status = 204;
    },
  });

  return api;
}
