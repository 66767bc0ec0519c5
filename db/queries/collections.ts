/** Collections (issue 8): named sets of files and extracted records, e.g. an agent's knowledge. */
import { TenantScope } from '../tenant-scope';

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
