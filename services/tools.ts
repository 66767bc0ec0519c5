/**
 * Tools agents may call, without HTTP: reads take the tenant's scope, changes a unit of work
 * (db/unit-of-work.ts); both answer rows. api/routes/tools.ts is the HTTP face.
 */
import { findOr404 } from '../db/find-or-404';
import { removeToolFromAgents } from '../db/queries/agents';
import { deleteRecord, insertRecord, recordById, updateRecord, valueTaken } from '../db/queries/records';
import { listQuery } from '../db/queries/list-query';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import type { TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import type { BuiltInTool } from '../domain/agents/tool-parameters';
import { conflict, validationError } from '../domain/errors';

export type ToolKind = 'built_in' | 'http';

export interface ToolRow {
  id: string;
  name: string;
  description: string;
  kind: ToolKind;
  builtin: BuiltInTool | null;
  url: string | null;
  parameters: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export interface ToolBody {
  name?: string;
  description?: string;
  kind?: ToolKind;
  builtin?: BuiltInTool;
  url?: string;
  parameters?: Record<string, unknown>;
}

export function requireTool(scope: TenantScope, id: string): Promise<ToolRow> {
  return findOr404('tool', id, () => recordById<ToolRow>(scope, 'tools', id));
}

/** The tenant's tools, oldest first, of one kind when given. */
export function listTools(scope: TenantScope, filter: { kind?: ToolKind }, page: PageRequest): Promise<Page<ToolRow>> {
  const q = listQuery(scope, 'tools', ['*'], [{ column: 'created_at' }, { column: 'id' }]);
  if (filter.kind !== undefined) q.where('kind', filter.kind);
  return paginate(q, page);
}

async function refuseTakenName(scope: TenantScope, name: string, exceptId?: string): Promise<void> {
  if (await valueTaken(scope, 'tools', 'name', name, exceptId)) throw conflict(`a tool named ${name} exists`);
}

const jsonColumns = (body: ToolBody) => ({ ...body, ...(body.parameters !== undefined ? { parameters: JSON.stringify(body.parameters) } : {}) });

/** Creates a tool; its name is unique in the tenant (409). */
export async function createTool(unit: Unit, body: ToolBody & { name: string }): Promise<ToolRow> {
  await refuseTakenName(unit.scope, body.name);
  const row = await insertRecord<ToolRow>(unit.scope, 'tools', jsonColumns(body));
  unit.audit({ action: 'tool.created', resourceType: 'tool', resourceId: row.id, details: { kind: row.kind } });
  return row;
}

/** Updates the fields sent: kind and builtin are fixed, a url applies only to http tools (422). */
export async function updateTool(unit: Unit, id: string, body: ToolBody): Promise<ToolRow> {
  const before = await requireTool(unit.scope, id);
  if (body.url !== undefined && before.kind !== 'http') {
    throw validationError('invalid body: body.url applies only to http tools', [{ field: 'body.url', message: 'applies only to http tools', type: 'any.unknown' }]);
  }
  if (body.name) await refuseTakenName(unit.scope, body.name, before.id);
  const row = await updateRecord<ToolRow>(unit.scope, 'tools', before.id, jsonColumns(body));
  unit.audit({ action: 'tool.updated', resourceType: 'tool', resourceId: before.id, details: { fields: Object.keys(body) } });
  return row;
}

/** Deletes a tool and takes it out of every agent that listed it. */
export async function deleteTool(unit: Unit, id: string): Promise<void> {
  const row = await requireTool(unit.scope, id);
  const removedFromAgents = await removeToolFromAgents(unit.scope, row.id);
  await deleteRecord(unit.scope, 'tools', row.id);
  unit.audit({ action: 'tool.deleted', resourceType: 'tool', resourceId: row.id, details: { removed_from_agents: removedFromAgents } });
}
