/**
 * `GET /api/v1/agents/{agent_id}/runs`: what a machine agent did (issue 7), newest first. Each run
 * is one triggering event outside the cooldown of its (agent, asset); `suppressed_events` counts
 * the events its cooldown held back. Another type's agent simply has no runs.
 */
import Joi from '../../domain/joi';
import type { MachineAgentRunRow } from '../../db/queries/machine-agent-runs';
import { listMachineAgentRuns } from '../../services/agents';
import { tenantScopeOf } from '../context';
import { pageQuery, pageOf } from '../pagination';
import { mapPage, type PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { agentParams } from '../resources/agent';
import { idRef } from '../validation';
import { isoTime } from '../../domain/time';

const runSchema = Joi.object({
  id: Joi.string(),
  agent_id: Joi.string(),
  asset_id: Joi.string().allow(null).description('null when the event named no asset'),
  event_id: Joi.string(),
  event_type: Joi.string(),
  action: Joi.string().valid('notified', 'recorded'),
  notification_id: Joi.string().allow(null),
  task_id: Joi.string().allow(null).description('The corrective maintenance task the run opened, if the agent has the create_maintenance_task tool'),
  engine: Joi.string()
    .valid('built-in', 'openai-compatible')
    .description(
      "Who wrote reply_text: the configured language model with the agent's model, or the built-in engine (no model configured, the agent's model is built-in, or the model failed)",
    ),
  reply_text: Joi.string(),
  suppressed_events: Joi.number().integer().description("Events of the same asset that arrived during this run's cooldown"),
  created_at: Joi.string().isoDate(),
});

const toRun = (row: MachineAgentRunRow) => ({ ...row, created_at: isoTime(row.created_at) });

export function registerMachineAgentRunsRoute(api: ApiRouter): void {
  api.route<{ agent_id: string }, PageRequest & { asset_id?: string }>({
    method: 'get',
    path: '/:agent_id/runs',
    summary: "List a machine agent's runs, newest first",
    tags: ['agents'],
    auth: 'user',
    permission: 'view_agents',
    params: agentParams,
    query: Joi.object({ ...pageQuery, asset_id: idRef }),
    responses: {
      200: { description: 'A page of runs', schema: pageOf(runSchema) },
      404: { description: 'Agent not found' },
    },
    handler: async (ctx, { params, query }) => {
      ctx.body = mapPage(await listMachineAgentRuns(tenantScopeOf(ctx), params.agent_id, query, query), toRun);
    },
  });
}
