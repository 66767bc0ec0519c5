import Joi from '../../domain/joi';
import type { Schema } from 'joi';
import { COLLECTION_COLUMNS, COLLECTION_ITEM_TYPES, CollectionItemRow, CollectionItemType, CollectionRow, whereCollectionFilter } from '../../db/queries/collections';
import {
  addCollectionItem,
  checkCollectionBody,
  CollectionBody,
  collectionColumns,
  listCollectionItems,
  removeCollectionItem,
  requireCollection,
} from '../../services/collections';
import { tenantScopeOf, userOf } from '../context';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, pageOf } from '../pagination';
import { mapPage, PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { idRef } from '../validation';
import { Resource, resourceRoutes } from '../resource-routes';

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

const collectionParams = Joi.object({ collection_id: idRef.required() });
const itemParams = Joi.object({ collection_id: idRef.required(), item_id: idRef.required() });

/** Collections as the standard resource routes (api/resource-routes.ts) declare them. */
const collectionResource: Resource<CollectionRow> = {
  path: '/:collection_id',
  tags: ['collections'],
  view: 'view_files',
  schema: collectionSchema,
  find: requireCollection,
  present: toCollection,
  write: { permission: 'manage_files', audit: 'collection', table: 'collections', columns: COLLECTION_COLUMNS },
};

export function collectionRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/collections');

  const collection = resourceRoutes(api, collectionResource);
  collection.list<{ agent_id?: string }>({
    summary: 'List collections',
    found: 'A page of collections',
    query: { agent_id: idRef },
    filter: whereCollectionFilter,
  });
  collection.create<CollectionBody>(
    {
      summary: 'Create a collection',
      body: Joi.object({ ...fields, name: fields.name.required() }),
      created: 'Created collection',
      responses: { 409: { description: 'Name taken' } },
    },
    { check: (unit, body) => checkCollectionBody(unit.scope, body), columns: collectionColumns },
  );
  collection.get({ summary: 'Get a collection', found: 'Collection' });
  collection.update<CollectionBody>(
    {
      summary: 'Update the fields sent; omitted fields keep their values',
      body: Joi.object(fields).min(1),
      updated: 'Updated collection',
      responses: { 409: { description: 'Name taken' } },
    },
    { check: (unit, before, body) => checkCollectionBody(unit.scope, body, before.id), columns: collectionColumns },
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
      ctx.body = mapPage(await listCollectionItems(tenantScopeOf(ctx), params.collection_id, query, query), toItem);
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
      const created = await runMutation(ctx, tenantId, actorOf(ctx), (unit) => addCollectionItem(unit, params.collection_id, userId, body));
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
      await runMutation(ctx, userOf(ctx).tenantId, actorOf(ctx), (unit) => removeCollectionItem(unit, params.collection_id, params.item_id));
      ctx.status = 204;
    },
  });

  return api;
}
