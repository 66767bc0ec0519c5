/**
 * `/api/v1/tools`: tools an agent may call. A tool is either one of the service's built-ins
 * (`get_asset_health`, `create_maintenance_task`) or an HTTP call to an allow-listed https URL.
 * `parameters` is a JSON schema (the function-calling subset, domain/agents/tool-parameters.ts).
 */
import Joi from '../../domain/joi';
import { checkWebhookUrl } from '../../infra/outbound/destination-guard';
import { TenantScope } from '../../db/tenant-scope';
import { BUILT_IN_TOOLS, BuiltInTool, validateToolParameters } from '../../domain/agents/tool-parameters';
import { conflict, validationError } from '../../domain/errors';
import { ApiRouter } from '../route';
import { findOr404 } from '../../db/find-or-404';
import { agentResourceRoutes } from '../resources/agent-resources';
import { recordTimesOf, recordTimesSchema } from '../record-times';

type ToolKind = 'built_in' | 'http';

interface ToolRow {
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

interface ToolBody {
  name?: string;
  description?: string;
  kind?: ToolKind;
  builtin?: BuiltInTool;
  url?: string;
  parameters?: Record<string, unknown>;
}

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

function requireTool(scope: TenantScope, id: string): Promise<ToolRow> {
  return findOr404('tool', id, () => scope.table('tools').where('id', id).first());
}

async function refuseTakenName(scope: TenantScope, name: string, exceptId?: string): Promise<void> {
  const q = scope.table('tools').where('name', name);
  if (exceptId) q.whereNot('id', exceptId);
  if (await q.first('id')) throw conflict(`a tool named ${name} exists`);
}

const jsonColumns = (body: ToolBody) => ({ ...body, ...(body.parameters !== undefined ? { parameters: JSON.stringify(body.parameters) } : {}) });

export function toolRoutes(): ApiRouter {
  const { api, routes: tool } = agentResourceRoutes('/api/v1/tools', 'tools', {
    path: '/:tool_id',
    schema: toolSchema,
    find: requireTool,
    present: toTool,
    audit: 'tool',
    table: 'tools',
  });
  tool.list({ summary: 'List tools', found: 'A page of tools', match: { kind: Joi.string().valid('built_in', 'http') } });
  tool.create<ToolBody>(
    { summary: 'Create a tool', body: createBody, created: 'Created tool', responses: { 409: { description: 'Name taken' } } },
    { check: (unit, body) => refuseTakenName(unit.scope, body.name!), columns: jsonColumns, after: (_unit, row) => ({ kind: row.kind }) },
  );
  tool.get({ summary: 'Get a tool', found: 'Tool' });
  tool.update<ToolBody>(
    { summary: 'Update the fields sent (kind and builtin are fixed)', body: updateBody, updated: 'Updated tool', responses: { 409: { description: 'Name taken' } } },
    {
      check: async (unit, before, body) => {
        if (body.url !== undefined && before.kind !== 'http') {
          throw validationError('invalid body: body.url applies only to http tools', [{ field: 'body.url', message: 'applies only to http tools', type: 'any.unknown' }]);
        }
        if (body.name) await refuseTakenName(unit.scope, body.name, before.id);
      },
      columns: jsonColumns,
    },
  );
  tool.remove(
    { summary: 'Delete a tool; it is removed from every agent that listed it' },
    {
      before: async (unit, row) => {
        const agents = await unit.scope
          .table('agents')
          .whereRaw('? = any(tools)', [row.id])
          .update({ tools: unit.tx.raw('array_remove(tools, ?::uuid)', [row.id]), updated_at: new Date() })
          .returning('id');
        return { removed_from_agents: agents.map((a: { id: string }) => a.id) };
      },
    },
  );

  return api;
}
