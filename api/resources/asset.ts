import Joi from '../../domain/joi';
import { ASSET_COLUMNS, AssetRow, findAsset } from '../../db/queries/assets';
import { TenantScope } from '../../db/tenant-scope';
import { idRef } from '../validation';
import { findOr404 } from '../../db/find-or-404';
import type { Resource } from '../resource-routes';
import { isoTime } from '../../domain/time';

/** The asset resource as the assets router and its sub-resource modules share it. */

export const location = Joi.object({
  building: Joi.string().max(200),
  floor: Joi.number().integer().min(-20).max(300),
  zone: Joi.string().max(200),
});

export const assetParams = Joi.object({ asset_id: idRef.required() });

export const assetSchema = Joi.object({
  id: Joi.string(),
  name: Joi.string(),
  type: Joi.string(),
  parent_id: Joi.string().allow(null),
  location,
  metadata: Joi.object().unknown(true),
  created_at: Joi.string().isoDate(),
  updated_at: Joi.string().isoDate(),
});

export function toAsset(row: AssetRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    parent_id: row.parent_id,
    location: row.location,
    metadata: row.metadata,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

/** A path id that is not a UUID names no asset: 404, like another tenant's asset. */
export function requireAsset(scope: TenantScope, id: string): Promise<AssetRow> {
  return findOr404('asset', id, () => findAsset(scope, id));
}

/** The asset as the standard resource routes (api/resource-routes.ts) declare it. */
export const assetResource: Resource<AssetRow> = {
  path: '/:asset_id',
  tags: ['assets'],
  view: 'view_assets',
  schema: assetSchema,
  find: requireAsset,
  present: toAsset,
  write: { permission: 'manage_assets', audit: 'asset', table: 'assets', columns: ASSET_COLUMNS },
};
