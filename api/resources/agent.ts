import Joi from '../../domain/joi';
import { AgentRow, findAgent } from '../../db/queries/agents';
import { TenantScope } from '../../db/tenant-scope';
import { AgentType } from '../../domain/agents/agents';
import { idRef } from '../validation';
import { findOr404 } from '../../db/find-or-404';

/** The agent lookup the agents and conversations routers share. */

export const agentParams = Joi.object({ agent_id: idRef.required() });

/** The agent, of the router's type when it has one; another tenant's or type's agent is 404. */
export function requireAgent(scope: TenantScope, id: string, type?: AgentType): Promise<AgentRow> {
  return findOr404('agent', id, () => findAgent(scope, id, type));
}
