/**
 * Running an agent's tool call for a conversation message, and its log (`tool_calls`, one row per
 * (message, tool)): a retried activity finds the logged call and reuses its result, so a
 * `create_maintenance_task` call never opens two work orders (the task and its log row commit in
 * one transaction). Read-only and http calls run outside any transaction.
 */
import { Db, Queryable } from '../db/knex';
import { createCorrectiveTask } from '../db/queries/corrective-tasks';
import { Priority, PRIORITIES } from '../db/queries/maintenance';
import { tenantScope } from '../db/tenant-scope';
import type { PlannedCall, ToolOutcome } from '../domain/agents/reply-engine';
import { postSigned } from '../infra/outbound/safe-http';
import type { TenantLimiter } from '../infra/tenant-limiter';
import { isoTime } from '../domain/time';

export interface ToolCallContext {
  tenantId: string;
  conversationId: string;
  /** The inbound message being answered. */
  messageId: string;
  agentId: string;
  contactId: string;
  now: Date;
}

interface AssetMatch {
  id: string;
  name: string;
}

const HTTP_TOOL_TIMEOUT_MS = 10_000;

/**
 * The tenant's asset a reference names: exact name (case-insensitive), or a serial number / tag in
 * its metadata, else the only asset whose name contains the reference. Null when none or ambiguous.
 */
export async function resolveAsset(db: Queryable, tenantId: string, ref: string): Promise<AssetMatch | null> {
  const scope = tenantScope(db, tenantId);
  const exact = await scope
    .table('assets')
    .where(
      (q) =>
        void q
          .whereRaw('lower(name) = lower(?)', [ref])
          .orWhereRaw(`lower(metadata->>'serial_number') = lower(?)`, [ref])
          .orWhereRaw(`lower(metadata->>'serial') = lower(?)`, [ref])
          .orWhereRaw(`lower(metadata->>'tag') = lower(?)`, [ref]),
    )
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .first('id', 'name');
  if (exact) return exact;
  const pattern = `%${ref.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const partial: AssetMatch[] = await scope.table('assets').whereILike('name', pattern).orderBy('id').limit(2).select('id', 'name');
  return partial.length === 1 ? partial[0] : null;
}

async function assetHealth(db: Queryable, tenantId: string, ref: string): Promise<ToolOutcome> {
  const asset = await resolveAsset(db, tenantId, ref);
  if (!asset) return { ok: false, error: 'asset_not_found' };
  const health = await tenantScope(db, tenantId).table('asset_health').where({ asset_id: asset.id }).first('health_score', 'status', 'last_updated');
  const [{ count }] = await tenantScope(db, tenantId).table('asset_alerts').where({ asset_id: asset.id }).whereNot('status', 'resolved').count({ count: '*' });
  return {
    ok: true,
    result: {
      asset_id: asset.id,
      asset_name: asset.name,
      health_score: health ? Math.round(Number(health.health_score)) : null,
      status: health?.status ?? null,
      open_alerts: Number(count),
      last_updated: health ? isoTime(health.last_updated) : null,
    },
  };
}

async function callHttpTool(url: string, args: Record<string, unknown>): Promise<ToolOutcome> {
  // The webhook destination rules with no development exception (docs/decisions/agent-tools.md), checked
  // again now: the host may resolve elsewhere than when the tool was saved.
  const res = await postSigned({ url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(args), allowPrivate: false, timeoutMs: HTTP_TOOL_TIMEOUT_MS });
  if (res.kind !== 'response') return { ok: false, error: res.kind };
  if (res.status < 200 || res.status >= 300) return { ok: false, error: `http_${res.status}` };
  let body: unknown = res.body;
  try {
    body = JSON.parse(res.body);
  } catch {
    // Not JSON: kept as (at most 1 KB of) text.
  }
  return { ok: true, result: { status: res.status, body } };
}

type LoggedCall = { outcome: ToolOutcome };

async function loggedCall(db: Queryable, ctx: ToolCallContext, name: string): Promise<LoggedCall | null> {
  const row = await tenantScope(db, ctx.tenantId).table('tool_calls').where({ message_id: ctx.messageId, name }).first('status', 'result');
  if (!row) return null;
  return { outcome: row.status === 'succeeded' ? { ok: true, result: row.result } : { ok: false, error: String(row.result?.error ?? 'failed') } };
}

async function logCall(db: Queryable, ctx: ToolCallContext, call: PlannedCall, outcome: ToolOutcome, durationMs: number): Promise<void> {
  await db.raw(
    `insert into tool_calls (tenant_id, conversation_id, message_id, tool_id, name, arguments, result, status, duration_ms, created_at)
     values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?)
     on conflict (tenant_id, message_id, name) where message_id is not null do nothing`,
    [
      ctx.tenantId,
      ctx.conversationId,
      ctx.messageId,
      call.tool.id,
      call.tool.name,
      JSON.stringify(call.arguments),
      JSON.stringify(outcome.ok ? outcome.result : { error: outcome.error }),
      outcome.ok ? 'succeeded' : 'failed',
      durationMs,
      ctx.now,
    ],
  );
}

const priorityOf = (v: unknown): Priority => ((PRIORITIES as readonly unknown[]).includes(v) ? (v as Priority) : 'medium');

/**
 * Runs the call once per (message, tool) and logs it; a repeat returns the logged outcome. An
 * http tool's call runs within its tenant's share of `httpCalls` (a refusal is thrown before
 * anything is logged, so the activity's retry makes the call later).
 */
export async function runToolCall(db: Db, ctx: ToolCallContext, call: PlannedCall, httpCalls: TenantLimiter): Promise<ToolOutcome> {
  const previous = await loggedCall(db, ctx, call.tool.name);
  if (previous) return previous.outcome;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const tool = call.tool;
  const ref = typeof call.arguments.asset === 'string' ? call.arguments.asset : '';

  if (tool.kind === 'built_in' && tool.builtin === 'create_maintenance_task') {
    return db.transaction(async (tx) => {
      const asset = await resolveAsset(tx, ctx.tenantId, ref);
      let outcome: ToolOutcome;
      if (!asset) {
        outcome = { ok: false, error: 'asset_not_found' };
      } else {
        const priority = priorityOf(call.arguments.priority);
        const task = await createCorrectiveTask(tx, {
          tenantId: ctx.tenantId,
          assetId: asset.id,
          title: `Reported in a conversation: ${asset.name}`,
          priority,
          dueAt: ctx.now,
          contactId: ctx.contactId,
          createdBy: 'conversation_agent',
          agentId: ctx.agentId,
        });
        outcome = { ok: true, result: { task_id: task.id, task_code: task.task_code, priority, asset_id: asset.id, asset_name: asset.name } };
      }
      await logCall(tx, ctx, call, outcome, elapsed());
      return outcome;
    });
  }

  // Database errors propagate (the activity retries); an http tool's failures are outcomes.
  const outcome = tool.kind === 'http' ? await httpCalls.run(ctx.tenantId, () => callHttpTool(tool.url, call.arguments)) : await assetHealth(db, ctx.tenantId, ref);
  await logCall(db, ctx, call, outcome, elapsed());
  return (await loggedCall(db, ctx, tool.name))?.outcome ?? outcome;
}
