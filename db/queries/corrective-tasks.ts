/**
 * Corrective maintenance tasks (work orders outside any plan: `plan_id` null, kind `corrective`)
 * opened by agents: a machine agent reacting to an event, or a conversation agent's
 * `create_maintenance_task` tool. Same table, gap-free codes and `task.created` event
 * as plan executions (db/queries/maintenance.ts); the caller's transaction makes it idempotent
 * together with the record that says why it was created (the run, the reply).
 */
import { Knex } from 'knex';
import { appendEvent } from '../outbox';
import { allocateTaskCode, Priority } from './maintenance';

/** Prefix of corrective task codes (`CM-000001`): their own gap-free series, apart from plans' `PM`. */
export const CORRECTIVE_TASK_PREFIX = 'CM';

export interface CorrectiveTaskInput {
  tenantId: string;
  assetId: string;
  title: string;
  priority: Priority;
  dueAt: Date;
  /** The data subject who reported it (conversation tools); null for machine agents. */
  contactId?: string | null;
  /** Who asked for it, in the event: `machine_agent` or `conversation_agent`. */
  createdBy: 'machine_agent' | 'conversation_agent';
  agentId: string;
}

export async function createCorrectiveTask(tx: Knex.Transaction, input: CorrectiveTaskInput): Promise<{ id: string; task_code: string }> {
  const taskCode = await allocateTaskCode(tx, input.tenantId, CORRECTIVE_TASK_PREFIX);
  const [task] = await tx('maintenance_tasks')
    .insert({
      tenant_id: input.tenantId,
      plan_id: null,
      asset_ids: [input.assetId],
      task_code: taskCode,
      title: input.title,
      priority: input.priority,
      kind: 'corrective',
      due_at: input.dueAt,
      contact_id: input.contactId ?? null,
    })
    .returning(['id', 'task_code']);
  await appendEvent(tx, {
    tenantId: input.tenantId,
    type: 'task.created',
    source: 'worker',
    data: {
      task_id: task.id,
      task_code: task.task_code,
      plan_id: null,
      asset_id: input.assetId,
      asset_ids: [input.assetId],
      due_at: input.dueAt.toISOString(),
      kind: 'corrective',
      executed_by: input.createdBy,
      agent_id: input.agentId,
    },
  });
  return task;
}
