/**
 * What agents use besides their own record (tools, email accounts, WhatsApp numbers): each is
 * read with `view_agents` and changed with `manage_agents`, under its own router and tag.
 */
import { Resource, resourceRoutes, ResourceWrites } from '../resource-routes';
import { ApiRouter } from '../route';

type AgentResource<Row extends { id: string }> = Pick<Resource<Row>, 'path' | 'schema' | 'find' | 'present'> & Pick<ResourceWrites, 'audit' | 'table'>;

/** The router of one such resource, its tags (for the routes it declares itself) and its standard routes. */
export function agentResourceRoutes<Row extends { id: string }>(prefix: string, tag: string, { audit, table, ...resource }: AgentResource<Row>) {
  const api = new ApiRouter(prefix);
  const tags = [tag];
  const routes = resourceRoutes<Row>(api, { ...resource, tags, view: 'view_agents', write: { permission: 'manage_agents', audit, table } });
  return { api, tags, routes };
}
