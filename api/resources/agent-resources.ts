/**
 * What agents use besides their own record (tools, email accounts, WhatsApp numbers): each is
 * read with `view_agents` and changed with `manage_agents` through its service, under its own
 * router and tag.
 */
import { Resource, resourceRoutes } from '../resource-routes';
import { ApiRouter } from '../route';

type AgentResource<Row extends { id: string }> = Pick<Resource<Row>, 'path' | 'schema' | 'find' | 'present'>;

/** The router of one such resource, its tags (for the routes it declares itself) and its standard routes. */
export function agentResourceRoutes<Row extends { id: string }>(prefix: string, tag: string, resource: AgentResource<Row>) {
  const api = new ApiRouter(prefix);
  const tags = [tag];
  const routes = resourceRoutes<Row>(api, { ...resource, tags, view: 'view_agents', manage: 'manage_agents' });
  return { api, tags, routes };
}
