/**
 * `/api/v1/agents` (SPEC.md, Agents) and the same agents filtered by type under
 * `/api/v1/whatsapp/agents` and `/api/v1/email`: one router factory, so the three prefixes share
 * every handler and rule. Per-type fields and channel rules: DECISIONS.md, Agents.
 */
import Joi from '../../domain/joi';
import type { ObjectSchema, Schema } from 'joi';
import { AGENT_COLUMNS, AgentRow, channelStatus, unknownToolIds } from '../../db/queries/agents';
import { isUuid, TenantScope } from '../../db/tenant-scope';
import {
  AGENT_STATUSES,
  AGENT_TYPES,
  AgentType,
  CHANNEL_OF_TYPE,
  ChannelType,
  DEFAULT_MODEL,
  DEFAULT_TEMPERATURE,
  EVENT_TYPE_PATTERN,
  MAX_COOLDOWN_MINUTES,
  TriggerConfig,
  USER_SETTABLE_AGENT_STATUSES,
} from '../../domain/agents/agents';
import { tenantScopeOf } from '../context';
import { AppError, validationError } from '../../domain/errors';
import { pageQuery, pageOf } from '../pagination';
import { paginate, PageRequest } from '../../db/pagination';
import { assertWithinPlanLimit, countRows } from '../../db/plan-limits';
import { ApiRouter } from '../route';
import { resourceRoutes } from '../resource-routes';
import { requireAgent } from '../resources/agent';
import { registerAgentConversationsRoute } from './conversations';
import { registerMachineAgentRunsRoute } from './machine-agent-runs';
import { isoTime } from '../../domain/time';

// ---- schemas ---------------------------------------------------------------------------------

const triggerConfig = Joi.object({
  event_types: Joi.array()
    .items(Joi.string().max(100).pattern(EVENT_TYPE_PATTERN).messages({ 'string.pattern.base': 'must be a dotted event type such as "vibration.threshold_exceeded"' }))
    .min(1)
    .max(50)
    .unique()
    .required(),
  cooldown_minutes: Joi.number().integer().min(0).max(MAX_COOLDOWN_MINUTES).required(),
});
const ref = Joi.string().max(64);
const agentFields = {
  name: Joi.string().trim().min(1).max(200),
  system_prompt: Joi.string().max(20_000),
  model: Joi.string().trim().min(1).max(100),
  temperature: Joi.number().min(0).max(2),
  tools: Joi.array().items(ref).max(50).unique(),
};
const onlyFor = (type: AgentType, schema: Schema) =>
  schema.when('type', { is: type, then: Joi.required(), otherwise: Joi.forbidden().messages({ 'any.unknown': `applies only to ${type} agents` }) });

function createBody(fixedType?: AgentType): ObjectSchema {
  return Joi.object({
    ...agentFields,
    name: agentFields.name.required(),
    system_prompt: agentFields.system_prompt.required(),
    type: fixedType
      ? Joi.string().valid(fixedType).default(fixedType)
      : Joi.string()
          .valid(...AGENT_TYPES)
          .required(),
    whatsapp_number_id: onlyFor('whatsapp', ref),
    email_account_id: onlyFor('email', ref),
    trigger_config: onlyFor('machine', triggerConfig),
  });
}

const updateBody = Joi.object({
  ...agentFields,
  whatsapp_number_id: ref,
  email_account_id: ref,
  trigger_config: triggerConfig,
  status: Joi.string().valid(...USER_SETTABLE_AGENT_STATUSES),
  type: Joi.any().forbidden().messages({ 'any.unknown': 'cannot be changed; create a new agent instead' }),
}).min(1);

export const agentSchema = Joi.object({
  id: Joi.string(),
  name: Joi.string(),
  type: Joi.string().valid(...AGENT_TYPES),
  system_prompt: Joi.string(),
  model: Joi.string(),
  temperature: Joi.number(),
  tools: Joi.array().items(Joi.string()),
  whatsapp_number_id: Joi.string().allow(null),
  email_account_id: Joi.string().allow(null),
  trigger_config: Joi.object({ event_types: Joi.array().items(Joi.string()), cooldown_minutes: Joi.number() }).allow(null),
  status: Joi.string().valid(...AGENT_STATUSES),
  created_at: Joi.string().isoDate(),
  updated_at: Joi.string().isoDate(),
});

interface AgentBody {
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

export function toAgent(row: AgentRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    system_prompt: row.system_prompt,
    model: row.model,
    temperature: row.temperature,
    tools: row.tools,
    whatsapp_number_id: row.whatsapp_number_id,
    email_account_id: row.email_account_id,
    trigger_config: row.trigger_config,
    status: row.status,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

// ---- rules -----------------------------------------------------------------------------------

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

/** PUT may not set another type's channel fields (they would break the agent's shape). */
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

const jsonColumns = (body: AgentBody) => ({
  ...body,
  ...(body.trigger_config !== undefined ? { trigger_config: JSON.stringify(body.trigger_config) } : {}),
});

// ---- routes ----------------------------------------------------------------------------------

/** The agents router at `prefix`; with `fixedType` it serves only agents of that type. */
export function agentRoutes(prefix = '/api/v1/agents', fixedType?: AgentType): ApiRouter {
  const api = new ApiRouter(prefix);
  const tags = ['agents'];
  const kind = fixedType ? `${fixedType} agent` : 'agent';

  api.route<unknown, PageRequest & { type?: AgentType; status?: string }>({
    method: 'get',
    path: '/',
    summary: `List ${kind}s`,
    tags,
    auth: 'user',
    permission: 'view_agents',
    query: Joi.object({
      ...pageQuery,
      type: fixedType ? Joi.string().valid(fixedType) : Joi.string().valid(...AGENT_TYPES),
      status: Joi.string().valid(...AGENT_STATUSES),
    }),
    responses: { 200: { description: `A page of ${kind}s`, schema: pageOf(agentSchema) } },
    handler: async (ctx, { query }) => {
      const q = tenantScopeOf(ctx)
        .table('agents')
        .select([...AGENT_COLUMNS])
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      const type = fixedType ?? query.type;
      if (type) q.where('type', type);
      if (query.status) q.where('status', query.status);
      ctx.body = await paginate(q, query, toAgent);
    },
  });

  const agent = resourceRoutes(api, {
    path: '/:agent_id',
    tags,
    view: 'view_agents',
    schema: agentSchema,
    find: (scope, id) => requireAgent(scope, id, fixedType),
    present: toAgent,
    write: { permission: 'manage_agents', audit: 'agent', table: 'agents', columns: AGENT_COLUMNS },
  });
  agent.create<AgentBody & { type: AgentType }>(
    {
      summary: `Create ${fixedType ? `a ${kind}` : 'an agent'}`,
      description: 'Per-type required fields: whatsapp → whatsapp_number_id; email → email_account_id (active); machine → trigger_config.',
      body: createBody(fixedType),
      created: 'Created agent (status active)',
      responses: {
        403: { description: 'Plan limit reached' },
        422: { description: 'Invalid body, unknown or inactive channel (EMAIL_ACCOUNT_INACTIVE...), unknown tool' },
      },
    },
    {
      check: async (unit, body) => {
        const channel = channelOf(body.type);
        if (channel) await requireActiveChannel(unit.scope, channel, body[CHANNEL_OF_TYPE[channel].column] as string);
        await requireTools(unit.scope, body.tools ?? []);
        await assertWithinPlanLimit(unit.tx, unit.scope.tenantId, 'agents', countRows('agents', unit.scope.tenantId));
      },
      columns: (body) => ({ model: DEFAULT_MODEL, temperature: DEFAULT_TEMPERATURE, tools: [], ...jsonColumns(body), status: 'active' }),
      after: (unit, row) => {
        unit.emit('agent.created', { agent_id: row.id, type: row.type });
        return { type: row.type };
      },
    },
  );
  agent.get({ summary: `Get ${fixedType ? `a ${kind}` : 'an agent'}`, found: 'Agent' });
  agent.update<AgentBody>(
    {
      summary: 'Update the fields sent; omitted fields keep their values',
      description: '`type` cannot change. `status` may be set to active or inactive; `error` is set by the service when the channel fails.',
      body: updateBody,
      updated: 'Updated agent',
      responses: { 422: { description: 'Invalid body, channel or tool' } },
    },
    {
      check: async (unit, before, body) => {
        refuseOtherTypesFields(before.type, body);
        const channel = channelOf(before.type);
        if (channel) {
          const column = CHANNEL_OF_TYPE[channel].column;
          const newChannelId = body[column];
          // A new channel, or asking to be active, needs the (resulting) channel to be usable.
          if (newChannelId !== undefined || body.status === 'active') {
            await requireActiveChannel(unit.scope, channel, newChannelId ?? (before[column] as string));
          }
        }
        if (body.tools) await requireTools(unit.scope, body.tools);
      },
      columns: (body, before) => {
        const changes: Record<string, unknown> = jsonColumns(body);
        const channel = channelOf(before.type);
        // Moving an agent in `error` onto a working channel repairs it.
        if (channel && body[CHANNEL_OF_TYPE[channel].column] !== undefined && before.status === 'error' && body.status === undefined) changes.status = 'active';
        return changes;
      },
      after: async (unit, before, _row, body) => unit.emit('agent.updated', { agent_id: before.id, fields: Object.keys(body) }),
    },
  );
  agent.remove(
    { summary: 'Delete an agent permanently; its conversation history is kept' },
    {
      before: async (_unit, row) => ({ type: row.type }),
      after: (unit, row) => unit.emit('agent.deleted', { agent_id: row.id, type: row.type }),
    },
  );

  registerAgentConversationsRoute(api, fixedType);
  if (!fixedType) registerMachineAgentRunsRoute(api);
  return api;
}

export const whatsappAgentRoutes = (): ApiRouter => agentRoutes('/api/v1/whatsapp/agents', 'whatsapp');
export const emailAgentRoutes = (): ApiRouter => agentRoutes('/api/v1/email', 'email');
