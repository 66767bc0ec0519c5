import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import list from './search-attributes.json';

/**
 * Custom search attributes (registered on the dev server by flags, and idempotently by the worker
 * on any other server). The list in search-attributes.json is the single source for both.
 */
export const SEARCH_ATTRIBUTES = list as ReadonlyArray<{ name: string; type: 'Keyword' }>;

export const TenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
export const ResourceIdKey = defineSearchAttributeKey('ResourceId', SearchAttributeType.KEYWORD);
export const PlanIdKey = defineSearchAttributeKey('PlanId', SearchAttributeType.KEYWORD);
export const WebhookIdKey = defineSearchAttributeKey('WebhookId', SearchAttributeType.KEYWORD);

/** TenantId and ResourceId on every workflow we start, plus any resource-specific key. */
export function resourceSearchAttributes(tenantId: string, resourceId: string, extra: Array<[typeof PlanIdKey, string]> = []): TypedSearchAttributes {
  return new TypedSearchAttributes([{ key: TenantIdKey, value: tenantId }, { key: ResourceIdKey, value: resourceId }, ...extra.map(([key, value]) => ({ key, value }))]);
}
