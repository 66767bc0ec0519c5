/**
 * `/api/v1/agents` (SPEC.md, Agents) and the same agents filtered by type under
 * `/api/v1/whatsapp/agents` and `/api/v1/email`: one router factory, so the three prefixes share
 * every handler and rule. Per-type fields and channel rules: docs/decisions/agent-fields-and-channels.md.
 */
import Joi from '../../domain/joi';
import type { ObjectSchema, Schema } from 'joi';
import type { AgentRow } from '../../db/queries/agents';
import { AGENT_STATUSES, AGENT_TYPES, AgentType, EVENT_TYPE_PATTERN, MAX_COOLDOWN_MINUTES, USER_SETTABLE_AGENT_STATUSES } from '../../domain/agents/agents';
import { AgentBody, createAgent, deleteAgent, listAgents, requireAgent, updateAgent } from '../../services/agents';
import { ApiRouter } from '../route';
import { inUserUnit, resourceRoutes } from '../resource-routes';
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
  model: Joi.string()
    .trim()
    .min(1)
    .max(100)
    .description(
      "`built-in` (the deterministic engine, every plan) or a language model the tenant's plan includes (free: none; starter: gpt-4o-mini; professional: also gpt-4.1-mini; enterprise: also gpt-4o, gpt-4.1; the operator may set other lists): others are 422 MODEL_NOT_ALLOWED",
    ),
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

// ---- routes ----------------------------------------------------------------------------------

/** The agents router at `prefix`; with `fixedType` it serves only agents of that type. */
export function agentRoutes(prefix = '/api/v1/agents', fixedType?: AgentType): ApiRouter {
  const api = new ApiRouter(prefix);
  const tags = ['agents'];
  const kind = fixedType ? `${fixedType} agent` : 'agent';

  const agent = resourceRoutes(api, {
    path: '/:agent_id',
    tags,
    view: 'view_agents',
    schema: agentSchema,
    find: (scope, id) => requireAgent(scope, id, fixedType),
    present: toAgent,
    manage: 'manage_agents',
  });
  agent.list<{ type?: AgentType; status?: string }>({
    summary: `List ${kind}s`,
    found: `A page of ${kind}s`,
    query: {
      type: fixedType ? Joi.string().valid(fixedType) : Joi.string().valid(...AGENT_TYPES),
      status: Joi.string().valid(...AGENT_STATUSES),
    },
    load: (scope, query) => listAgents(scope, { type: fixedType ?? query.type, status: query.status }, query),
  });
  agent.create<AgentBody & { type: AgentType }>(
    {
      summary: `Create ${fixedType ? `a ${kind}` : 'an agent'}`,
      description: 'Per-type required fields: whatsapp → whatsapp_number_id; email → email_account_id (active); machine → trigger_config.',
      body: createBody(fixedType),
      created: 'Created agent (status active)',
      responses: {
        403: { description: 'Plan limit reached' },
        422: { description: "Invalid body, a model the tenant's plan does not include (MODEL_NOT_ALLOWED), unknown or inactive channel (EMAIL_ACCOUNT_INACTIVE...), unknown tool" },
      },
    },
    (ctx, body) => inUserUnit(ctx, (unit) => createAgent(unit, body, ctx.deps.config.llm.planModels)),
  );
  agent.get({ summary: `Get ${fixedType ? `a ${kind}` : 'an agent'}`, found: 'Agent' });
  agent.update<AgentBody>(
    {
      summary: 'Update the fields sent; omitted fields keep their values',
      description: '`type` cannot change. `status` may be set to active or inactive; `error` is set by the service when the channel fails.',
      body: updateBody,
      updated: 'Updated agent',
      responses: { 422: { description: "Invalid body, a model the tenant's plan does not include (MODEL_NOT_ALLOWED), channel or tool" } },
    },
    (ctx, id, body) => inUserUnit(ctx, (unit) => updateAgent(unit, id, body, ctx.deps.config.llm.planModels, fixedType)),
  );
  agent.remove({ summary: 'Delete an agent permanently; its conversation history is kept' }, (ctx, id) => inUserUnit(ctx, (unit) => deleteAgent(unit, id, fixedType)));

  registerAgentConversationsRoute(api, fixedType);
  if (!fixedType) registerMachineAgentRunsRoute(api);
  return api;
}

export const whatsappAgentRoutes = (): ApiRouter => agentRoutes('/api/v1/whatsapp/agents', 'whatsapp');
export const emailAgentRoutes = (): ApiRouter => agentRoutes('/api/v1/email', 'email');
