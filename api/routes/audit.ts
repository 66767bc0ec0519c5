import Joi from '../../domain/joi';
import { tenantScopeOf } from '../context';
import { pageQuery, pageOf } from '../pagination';
import { mapPage, PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { isoTime } from '../../domain/time';
import { AuditFilter, AuditRow, listAuditEntries, verifyAuditChain } from '../../services/audit';

type AuditQuery = PageRequest & AuditFilter;

const toEntry = (row: AuditRow) => ({ ...row, seq: Number(row.seq), occurred_at: isoTime(row.occurred_at) });

const auditEntry = Joi.object({
  id: Joi.string(),
  seq: Joi.number().integer(),
  occurred_at: Joi.string().isoDate(),
  actor_type: Joi.string()
    .valid('user', 'service', 'system', 'operator')
    .description("operator: a person running the service's operator command (actor_id: the name it ran under)"),
  actor_id: Joi.string().allow(null),
  action: Joi.string(),
  resource_type: Joi.string(),
  resource_id: Joi.string().allow(null),
  request_id: Joi.string().allow(null),
  subject_hash: Joi.string().allow(null),
  details: Joi.object().unknown(true),
  hash: Joi.string(),
});

export function auditRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/audit');

  api.route<unknown, AuditQuery>({
    method: 'get',
    path: '/',
    summary: 'The immutable audit trail of the tenant, newest first',
    tags: ['audit'],
    auth: 'user',
    permission: 'view_audit',
    query: Joi.object({
      ...pageQuery,
      action: Joi.string().max(100),
      resource_type: Joi.string().max(100),
      resource_id: Joi.string().max(100),
      actor_id: Joi.string().max(100),
      from: Joi.date().iso(),
      to: Joi.date().iso().min(Joi.ref('from')),
    }),
    responses: {
      200: {
        description: 'A page of audit entries',
        schema: pageOf(auditEntry),
      },
    },
    handler: async (ctx, { query }) => {
      ctx.body = mapPage(await listAuditEntries(tenantScopeOf(ctx), query, query), toEntry);
    },
  });

  api.route({
    method: 'get',
    path: '/verify',
    summary: "Verify the tenant's audit hash chain end to end",
    tags: ['audit'],
    auth: 'user',
    permission: 'view_audit',
    responses: {
      200: {
        description: 'valid: true with the number of rows checked, or valid: false with the first broken row',
        schema: Joi.object({
          valid: Joi.boolean(),
          checked: Joi.number().integer(),
          last_seq: Joi.number().integer().allow(null),
          last_hash: Joi.string().allow(null),
          broken_at_seq: Joi.number().integer(),
          reason: Joi.string(),
        }),
      },
    },
    handler: async (ctx) => {
      ctx.body = await verifyAuditChain(tenantScopeOf(ctx));
    },
  });

  return api;
}
