/** Storage of machine agent runs (issue 7). */
import type { LlmEngine } from '../../domain/llm/provider';
import type { Knex } from 'knex';
import { Queryable } from '../knex';
import { TenantScope, whereUuidIs } from '../tenant-scope';

export type MachineAgentAction = 'notified' | 'recorded';

export interface MachineAgentRunRow {
  id: string;
  agent_id: string;
  asset_id: string | null;
  event_id: string;
  event_type: string;
  action: MachineAgentAction;
  notification_id: string | null;
  /** The corrective task the run opened (agents with the create_maintenance_task tool). */
  task_id: string | null;
  engine: LlmEngine;
  reply_text: string;
  suppressed_events: number;
  created_at: Date;
}

export const MACHINE_AGENT_RUN_COLUMNS = [
  'id',
  'agent_id',
  'asset_id',
  'event_id',
  'event_type',
  'action',
  'notification_id',
  'task_id',
  'engine',
  'reply_text',
  'suppressed_events',
  'created_at',
] as const;

/** Records a run; null when this agent already ran for this event (a redispatched event). */
export async function insertMachineAgentRun(
  db: Queryable,
  run: { tenantId: string; agentId: string; assetId: string | null; eventId: string; eventType: string; action: MachineAgentAction; replyText: string; engine: LlmEngine },
): Promise<{ id: string } | null> {
  const [row] = await db('machine_agent_runs')
    .insert({
      tenant_id: run.tenantId,
      agent_id: run.agentId,
      asset_id: run.assetId,
      event_id: run.eventId,
      event_type: run.eventType,
      action: run.action,
      engine: run.engine,
      reply_text: run.replyText,
    })
    .onConflict(['tenant_id', 'agent_id', 'event_id'])
    .ignore()
    .returning('id');
  return row ? { id: row.id } : null;
}

/** An agent's runs, newest first; an asset_id that is not a UUID matches nothing. */
export function machineAgentRunListQuery(scope: TenantScope, agentId: string, filter: { asset_id?: string }): Knex.QueryBuilder {
  const q = scope
    .table('machine_agent_runs')
    .where('agent_id', agentId)
    .select([...MACHINE_AGENT_RUN_COLUMNS])
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
  if (filter.asset_id !== undefined) whereUuidIs(q, 'asset_id', filter.asset_id);
  return q;
}
