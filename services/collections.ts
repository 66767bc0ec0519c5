/**
 * Collections of files and extracted records, without HTTP: the rules api/routes/collections.ts
 * (resourceRoutes) applies around its standard writes, and the membership changes.
 */
import { findOr404 } from '../db/find-or-404';
import {
  collectionById,
  collectionItemExists,
  collectionItemsQuery,
  CollectionItemRow,
  CollectionItemType,
  collectionNameTaken,
  CollectionRow,
  deleteCollectionItem,
  insertCollectionItem,
} from '../db/queries/collections';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { isUuid, type TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { conflict, notFound, validationError } from '../domain/errors';

export type CollectionBody = { name?: string; description?: string | null; agent_id?: string | null };

export function requireCollection(scope: TenantScope, id: string): Promise<CollectionRow> {
  return findOr404('collection', id, () => collectionById(scope, id));
}

const unknownReference = (field: string, what: string) =>
  validationError(`${field} does not name ${what} of this tenant`, [{ field: `body.${field}`, message: `unknown ${what}`, type: 'any.unknown_reference' }]);

/** Checks the fields that reference (422) or must be unique (409), inside the writing transaction. */
export async function checkCollectionBody(scope: TenantScope, body: CollectionBody, exceptId?: string): Promise<void> {
  if (body.agent_id && !(isUuid(body.agent_id) && (await scope.table('agents').where('id', body.agent_id).first('id')))) {
    throw unknownReference('agent_id', 'an agent');
  }
  if (body.name !== undefined && (await collectionNameTaken(scope, body.name, exceptId))) throw conflict(`a collection named "${body.name}" exists`);
}

/** The columns a body writes: an empty description is none. */
export const collectionColumns = (body: CollectionBody) => ({
  ...body,
  ...(body.description !== undefined ? { description: body.description || null } : {}),
});

/** A collection's items whose item still exists (404 for an unknown collection). */
export async function listCollectionItems(
  scope: TenantScope,
  collectionId: string,
  filter: { item_type?: CollectionItemType },
  page: PageRequest,
): Promise<Page<CollectionItemRow>> {
  const collection = await requireCollection(scope, collectionId);
  return paginate(collectionItemsQuery(scope, collection.id, filter), page);
}

/** Adds a file or record of the tenant (422 otherwise); 409 when it is already a member. */
export async function addCollectionItem(unit: Unit, collectionId: string, userId: string, item: { item_type: CollectionItemType; item_id: string }): Promise<CollectionItemRow> {
  const collection = await requireCollection(unit.scope, collectionId);
  if (!(isUuid(item.item_id) && (await collectionItemExists(unit.scope, item.item_type, item.item_id)))) {
    throw unknownReference('item_id', item.item_type === 'file' ? 'a file' : 'an extracted record');
  }
  const row = await insertCollectionItem(unit.scope, { collectionId: collection.id, itemType: item.item_type, itemId: item.item_id, addedBy: userId });
  if (!row) throw conflict('the item is already in the collection');
  unit.audit({ action: 'collection.item_added', resourceType: 'collection', resourceId: collection.id, details: { item_type: item.item_type, item_id: item.item_id } });
  return row;
}

/** Removes an item from the collection (the item itself stays); 404 when it is not in it. */
export async function removeCollectionItem(unit: Unit, collectionId: string, itemId: string): Promise<void> {
  const collection = await requireCollection(unit.scope, collectionId);
  const removed = isUuid(itemId) ? await deleteCollectionItem(unit.scope, collection.id, itemId) : 0;
  if (removed === 0) throw notFound('collection item');
  unit.audit({ action: 'collection.item_removed', resourceType: 'collection', resourceId: collection.id, details: { item_id: itemId } });
}
