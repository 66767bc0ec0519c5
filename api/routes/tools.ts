/**
 * `/api/v1/tools`: tools an agent may call. A tool is either one of the service's built-ins
 * (`get_asset_health`, `create_maintenance_task`) or an HTTP call to an allow-listed https URL.
 * `parameters` is a JSON schema (the function-calling subset, domain/agents/tool-parameters.ts).
 */
import Joi from '../../domain/joi';
import { checkWebhookUrl } from '../../infra/outbound/destination-guard';
import { BUILT_IN_TOOLS, validateToolParameters } from '../../domain/agents/tool-parameters';
import { createTool, deleteTool, listTools, requireTool, ToolBody, ToolKind, ToolRow, updateTool } from '../../services/tools';
import { ApiRouter } from '../route';
import { inUserUnit } from '../resource-routes';
import { agentResourceRoutes } from '../resources/agent-resources';
import { recordTimesOf, recordTimesSchema } from '../record-times';

/**
 * Tool URLs follow the webhook destination rules with no development exception: https only, no
 * credentials, no private, loopback or metadata IP literals (host names are checked again when
 * the tool is called).
 */
const toolUrl = Joi.string()
  .trim()
  .max(2_000)
  .custom((value: string, helpers) => {
    const check = checkWebhookUrl(value, { allowPrivate: false });
    return check.kind === 'ok' ? value : helpers.message({ custom: check.reason });
  });
const parameters = Joi.object()
  .unknown(true)
  .custom((value, helpers) => {
    const issues = validateToolParameters(value);
    return issues.length === 0 ? value : helpers.message({ custom: issues.map((i) => `${i.path} ${i.message}`).join('; ') });
  });
const fields = {
  name: Joi.string()
    .pattern(/^[a-z][a-z0-9_]{0,63}$/)
    .messages({ 'string.pattern.base': 'must be snake_case, at most 64 characters' }),
  description: Joi.string().trim().min(1).max(1_000),
  parameters,
};
const createBody = Joi.object({
  ...fields,
  name: fields.name.required(),
  description: fields.description.required(),
  kind: Joi.string().valid('built_in', 'http').required(),
  builtin: Joi.string()
    .valid(...BUILT_IN_TOOLS)
    .when('kind', { is: 'built_in', then: Joi.required(), otherwise: Joi.forbidden() }),
  url: toolUrl.when('kind', { is: 'http', then: Joi.required(), otherwise: Joi.forbidden() }),
  parameters: parameters.default({ type: 'object', properties: {} }),
});
const updateBody = Joi.object({
  ...fields,
  url: toolUrl,
  kind: Joi.any().forbidden().messages({ 'any.unknown': 'cannot be changed; create a new tool instead' }),
  builtin: Joi.any().forbidden().messages({ 'any.unknown': 'cannot be changed; create a new tool instead' }),
}).min(1);

const toolSchema = Joi.object({
  id: Joi.string(),
  name: Joi.string(),
  description: Joi.string(),
  kind: Joi.string().valid('built_in', 'http'),
  builtin: Joi.string()
    .valid(...BUILT_IN_TOOLS)
    .allow(null),
  url: Joi.string().allow(null),
  parameters: Joi.object().unknown(true),
  ...recordTimesSchema,
});

const toTool = (row: ToolRow) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  kind: row.kind,
  builtin: row.builtin,
  url: row.url,
  parameters: row.parameters,
  ...recordTimesOf(row),
});

export function toolRoutes(): ApiRouter {
  const { api, routes: tool } = agentResourceRoutes('/api/v1/tools', 'tools', { path: '/:tool_id', schema: toolSchema, find: requireTool, present: toTool });
  tool.list<{ kind?: ToolKind }>({
    summary: 'List tools',
    found: 'A page of tools',
    match: { kind: Joi.string().valid('built_in', 'http') },
    load: (scope, query) => listTools(scope, query, query),
  });
  tool.create<ToolBody & { name: string }>(
    { summary: 'Create a tool', body: createBody, created: 'Created tool', responses: { 409: { description: 'Name taken' } } },
    (ctx, body) => inUserUnit(ctx, (unit) => createTool(unit, body)),
  );
  tool.get({ summary: 'Get a tool', found: 'Tool' });
  tool.update<ToolBody>(
    { summary: 'Update the fields sent (kind and builtin are fixed)', body: updateBody, updated: 'Updated tool', responses: { 409: { description: 'Name taken' } } },
    (ctx, id, body) => inUserUnit(ctx, (unit) => updateTool(unit, id, body)),
  );
  tool.remove({ summary: 'Delete a tool; it is removed from every agent that listed it' }, (ctx, id) => inUserUnit(ctx, (unit) => deleteTool(unit, id)));

  return api;
}
