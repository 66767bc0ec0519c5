import Joi from '../../domain/joi';
import { AgentRow, findAgent } from '../../db/queries/agents';
import { isUuid, TenantScope } from '../../db/tenant-scope';
import { AgentType } from '../../domain/agents/agents';
import { notFound } from '../errors';
import { idRef } from '../validation';

/** The agent lookup the agents and conversations routers share. */

export const agentParams = Joi.object({ agent_id: idRef.required() });

/** The agent, of the router's type when it has one; another tenant's or type's agent is 404. */
export async function requireAgent(scope: TenantScope, id: string, type?: AgentType): Promise<AgentRow> {
  const row = isUuid(id) ? await findAgent(scope, id, type) : undefined;
  if (!row) throw notFound('agent');
  return row;
}
