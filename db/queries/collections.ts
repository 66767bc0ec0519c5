/** Collections (issue 8): named sets of files and extracted records, e.g. an agent's knowledge. */
import type { Knex } from 'knex';
import { TenantScope } from '../tenant-scope';
import { whereUuidFilters } from './list-query';

export const COLLECTION_ITEM_TYPES = ['file', 'extracted_record'] as const;
export type CollectionItemType = (typeof COLLECTION_ITEM_TYPES)[number];

export interface CollectionRow {
  id: string;
  name: string;
  description: string | null;
  agent_id: string | null;
  created_at: Date;
  updated_at: Date;
}
export const COLLECTION_COLUMNS = ['id', 'name', 'description', 'agent_id', 'created_at', 'updated_at'] as const;

export interface CollectionItemRow {
  id: string;
  collection_id: string;
  item_type: CollectionItemType;
  item_id: string;
  added_by: string | null;
  added_at: Date;
}
export const COLLECTION_ITEM_COLUMNS = ['id', 'collection_id', 'item_type', 'item_id', 'added_by', 'added_at'] as const;

/** The table each item type lives in. */
const ITEM_TABLES: Readonly<Record<CollectionItemType, string>> = { file: 'files', extracted_record: 'extracted_records' };

export const collectionById = (scope: TenantScope, id: string): Promise<CollectionRow | undefined> =>
  scope
    .table('collections')
    .where('id', id)
    .first([...COLLECTION_COLUMNS]);

/** Whether the tenant has this item. */
export async function collectionItemExists(scope: TenantScope, type: CollectionItemType, id: string): Promise<boolean> {
  const table = ITEM_TABLES[type];
  return (await scope.table(table).where(`${table}.id`, id).first('id')) !== undefined;
}

/** Removes an item from every collection of the tenant: call it when the item is deleted. */
export async function removeCollectionMemberships(scope: TenantScope, type: CollectionItemType, id: string): Promise<number> {
  return scope.table('collection_items').where({ item_type: type, item_id: id }).delete();
}

/**
 * A collection's memberships whose item still exists: a file or record deleted by a path that does
 * not call removeCollectionMemberships (a privacy erasure, retention) drops out of the list.
 */
export function liveItemsOf(scope: TenantScope, collectionId: string) {
  return scope
    .table('collection_items')
    .where('collection_id', collectionId)
    .whereRaw(
      `case collection_items.item_type
         when 'file' then exists (select 1 from files where files.id = collection_items.item_id and files.tenant_id = collection_items.tenant_id)
         when 'extracted_record' then exists (select 1 from extracted_records r where r.id = collection_items.item_id and r.tenant_id = collection_items.tenant_id)
         else true
       end`,
    );
}

/** Narrows the tenant's collection list: by agent (an agent_id that is not a UUID matches nothing). */
export function whereCollectionFilter(q: Knex.QueryBuilder, filter: { agent_id?: string }): void {
  if (filter.agent_id) whereUuidFilters(q, filter, { agent_id: 'agent_id' });
}

/** Whether another collection of the tenant has this name. */
export async function collectionNameTaken(scope: TenantScope, name: string, exceptId?: string): Promise<boolean> {
  const clash = scope.table('collections').where('name', name).first('id');
  if (exceptId) clash.whereNot('id', exceptId);
  return Boolean(await clash);
}

/** A collection's live items, oldest first. */
export function collectionItemsQuery(scope: TenantScope, collectionId: string, filter: { item_type?: CollectionItemType }): Knex.QueryBuilder {
  const q = liveItemsOf(scope, collectionId)
    .select([...COLLECTION_ITEM_COLUMNS])
    .orderBy([{ column: 'added_at' }, { column: 'id' }]);
  if (filter.item_type) q.where('item_type', filter.item_type);
  return q;
}

/** Adds the item unless it is already a member (then undefined). */
export async function insertCollectionItem(
  scope: TenantScope,
  item: { collectionId: string; itemType: CollectionItemType; itemId: string; addedBy: string },
): Promise<CollectionItemRow | undefined> {
  const result: { rows: CollectionItemRow[] } = await scope.db.raw(
    `insert into collection_items (tenant_id, collection_id, item_type, item_id, added_by) values (?, ?, ?, ?, ?)
     on conflict (collection_id, item_type, item_id) do nothing returning ${COLLECTION_ITEM_COLUMNS.join(', ')}`,
    [scope.tenantId, item.collectionId, item.itemType, item.itemId, item.addedBy],
  );
  return result.rows[0];
}

/** Removes the item from the collection; answers how many memberships went (0 or 1). */
export function deleteCollectionItem(scope: TenantScope, collectionId: string, itemId: string): Promise<number> {
  return scope.table('collection_items').where({ collection_id: collectionId, item_id: itemId }).delete();
}
