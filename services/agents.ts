/**
 * Agents, without HTTP: reads take the tenant's scope, changes a unit of work
 * (db/unit-of-work.ts); both answer rows. api/routes/agents.ts is the HTTP face (one router per
 * prefix: `type` narrows every call to that prefix's agents). Channel rules: docs/decisions/agent-fields-and-channels.md.
 */
import { findOr404 } from '../db/find-or-404';
import { AGENT_COLUMNS, agentListQuery, AgentRow, channelStatus, findAgent, unknownToolIds } from '../db/queries/agents';
import { MachineAgentRunRow, machineAgentRunListQuery } from '../db/queries/machine-agent-runs';
import { deleteRecord, insertRecord, updateRecord } from '../db/queries/records';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { assertWithinPlanLimit, countRows, tenantPlan } from '../db/plan-limits';
import { isUuid, type TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { AgentType, CHANNEL_OF_TYPE, ChannelType, DEFAULT_MODEL, DEFAULT_TEMPERATURE, TriggerConfig } from '../domain/agents/agents';
import { AppError, validationError } from '../domain/errors';
import { BUILT_IN_MODEL, planAllowsModel, type PlanModels } from '../domain/tenancy/plans';

export interface AgentBody {
  name?: string;
  type?: AgentType;
  system_prompt?: string;
  model?: string;
  temperature?: number;
  tools?: string[];
  whatsapp_number_id?: string;
  email_account_id?: string;
  trigger_config?: TriggerConfig;
  status?: 'active' | 'inactive';
}

/** The agent, of `type` when given; another tenant's or type's agent is 404. */
export function requireAgent(scope: TenantScope, id: string, type?: AgentType): Promise<AgentRow> {
  return findOr404('agent', id, () => findAgent(scope, id, type));
}

export function listAgents(scope: TenantScope, filter: { type?: AgentType; status?: string }, page: PageRequest): Promise<Page<AgentRow>> {
  return paginate(agentListQuery(scope, filter), page);
}

/** A machine agent's runs, newest first (404 for an unknown agent; another type's agent has none). */
export async function listMachineAgentRuns(scope: TenantScope, agentId: string, filter: { asset_id?: string }, page: PageRequest): Promise<Page<MachineAgentRunRow>> {
  const agent = await requireAgent(scope, agentId);
  return paginate(machineAgentRunListQuery(scope, agent.id, filter), page);
}

const channelError = (channel: ChannelType, problem: 'NOT_FOUND' | 'INACTIVE', id: string): AppError => {
  const { column, resource } = CHANNEL_OF_TYPE[channel];
  const what = resource.toLowerCase().replace('_', ' ');
  const detail = problem === 'NOT_FOUND' ? `${column} does not name a ${what} of this tenant` : `the ${what} ${id} is inactive`;
  return new AppError(`${resource}_${problem}` as const, detail, { field: `body.${column}` }, 422);
};

/** A channel record the agent may use: the tenant's, and active (SPEC.md, Agents rule 1). */
async function requireActiveChannel(scope: TenantScope, channel: ChannelType, id: string): Promise<void> {
  const status = isUuid(id) ? await channelStatus(scope, channel, id) : undefined;
  if (status === undefined) throw channelError(channel, 'NOT_FOUND', id);
  if (status !== 'active') throw channelError(channel, 'INACTIVE', id);
}

async function requireTools(scope: TenantScope, ids: readonly string[]): Promise<void> {
  const unknown = [...ids.filter((id) => !isUuid(id)), ...(await unknownToolIds(scope, ids.filter(isUuid)))];
  if (unknown.length > 0) {
    throw new AppError('TOOL_NOT_FOUND', `tools not found in this tenant: ${unknown.join(', ')}`, { field: 'body.tools', tool_ids: unknown }, 422);
  }
}

const channelOf = (type: AgentType): ChannelType | null => (type === 'machine' ? null : type);

/** An update may not set another type's channel fields (they would break the agent's shape). */
function refuseOtherTypesFields(type: AgentType, body: AgentBody): void {
  const owners = { whatsapp_number_id: 'whatsapp', email_account_id: 'email', trigger_config: 'machine' } as const;
  const wrong = (Object.keys(owners) as (keyof typeof owners)[]).filter((f) => body[f] !== undefined && owners[f] !== type);
  if (wrong.length > 0) {
    throw validationError(
      `invalid body: ${wrong.map((f) => `body.${f} applies only to ${owners[f]} agents`).join('; ')}`,
      wrong.map((f) => ({ field: `body.${f}`, message: `applies only to ${owners[f]} agents`, type: 'any.unknown' })),
    );
  }
}

/** A model the tenant's plan includes (the platform's key pays for it): 422 MODEL_NOT_ALLOWED otherwise. */
async function requireAllowedModel(unit: Unit, models: PlanModels, model: string): Promise<void> {
  const plan = await tenantPlan(unit.tx, unit.scope.tenantId);
  if (planAllowsModel(models, plan, model)) return;
  const allowed = [BUILT_IN_MODEL, ...models[plan]];
  throw new AppError('MODEL_NOT_ALLOWED', `the ${plan} plan does not include the model "${model}"; it includes: ${allowed.join(', ')}`, { field: 'body.model', allowed }, 422);
}

const jsonColumns = (body: AgentBody) => ({
  ...body,
  ...(body.trigger_config !== undefined ? { trigger_config: JSON.stringify(body.trigger_config) } : {}),
});

/**
 * Creates an active agent: its model one its tenant's plan includes (422), its channel the
 * tenant's and active, its tools the tenant's, and the plan must allow one more (403). Emits `agent.created`.
 */
export async function createAgent(unit: Unit, body: AgentBody & { type: AgentType }, models: PlanModels): Promise<AgentRow> {
  if (body.model !== undefined) await requireAllowedModel(unit, models, body.model);
  const channel = channelOf(body.type);
  if (channel) await requireActiveChannel(unit.scope, channel, body[CHANNEL_OF_TYPE[channel].column] as string);
  await requireTools(unit.scope, body.tools ?? []);
  await assertWithinPlanLimit(unit.tx, unit.scope.tenantId, 'agents', countRows('agents', unit.scope.tenantId));
  const columns = { model: DEFAULT_MODEL, temperature: DEFAULT_TEMPERATURE, tools: [], ...jsonColumns(body), status: 'active' };
  const row = await insertRecord<AgentRow>(unit.scope, 'agents', columns, AGENT_COLUMNS);
  unit.emit('agent.created', { agent_id: row.id, type: row.type });
  unit.audit({ action: 'agent.created', resourceType: 'agent', resourceId: row.id, details: { type: row.type } });
  return row;
}

/**
 * Updates the fields sent (the type is fixed). A new channel, or asking to be active, needs the
 * resulting channel to be usable; moving an agent in `error` onto a working channel repairs it.
 * Emits `agent.updated`.
 */
export async function updateAgent(unit: Unit, id: string, body: AgentBody, models: PlanModels, type?: AgentType): Promise<AgentRow> {
  const before = await requireAgent(unit.scope, id, type);
  refuseOtherTypesFields(before.type, body);
  if (body.model !== undefined) await requireAllowedModel(unit, models, body.model);
  const channel = channelOf(before.type);
  const changes: Record<string, unknown> = jsonColumns(body);
  if (channel) {
    const column = CHANNEL_OF_TYPE[channel].column;
    const newChannelId = body[column];
    if (newChannelId !== undefined || body.status === 'active') await requireActiveChannel(unit.scope, channel, newChannelId ?? (before[column] as string));
    if (newChannelId !== undefined && before.status === 'error' && body.status === undefined) changes.status = 'active';
  }
  if (body.tools) await requireTools(unit.scope, body.tools);
  const row = await updateRecord<AgentRow>(unit.scope, 'agents', before.id, changes, AGENT_COLUMNS);
  unit.emit('agent.updated', { agent_id: before.id, fields: Object.keys(body) });
  unit.audit({ action: 'agent.updated', resourceType: 'agent', resourceId: before.id, details: { fields: Object.keys(body) } });
  return row;
}

/** Deletes the agent; its conversation history is kept. Emits `agent.deleted`. */
export async function deleteAgent(unit: Unit, id: string, type?: AgentType): Promise<void> {
  const row = await requireAgent(unit.scope, id, type);
  await deleteRecord(unit.scope, 'agents', row.id);
  unit.audit({ action: 'agent.deleted', resourceType: 'agent', resourceId: row.id, details: { type: row.type } });
  unit.emit('agent.deleted', { agent_id: row.id, type: row.type });
}
