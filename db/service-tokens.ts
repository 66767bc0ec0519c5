/** Revoked service tokens, by their `jti`; a service token lives at most 90 days, so a record is useless after that. */
import type { Knex } from 'knex';
import type { Queryable } from './knex';

export async function serviceTokenRevoked(db: Queryable, jti: string): Promise<boolean> {
  return Boolean(await db('service_token_revocations').where({ jti }).first('jti'));
}

/** Records the revocation (once: revoking again keeps the first record) and answers it. */
export async function revokeServiceToken(db: Queryable, jti: string, revokedBy: string): Promise<{ jti: string; revoked_at: Date; revoked_by: string }> {
  await db('service_token_revocations').insert({ jti, revoked_by: revokedBy }).onConflict('jti').ignore();
  return db('service_token_revocations').where({ jti }).first('jti', 'revoked_at', 'revoked_by');
}

/** A service token minted by the operator's CLI: never the token, only what names and bounds it. */
export interface ServiceTokenRecord {
  jti: string;
  service_id: string;
  scopes: string[];
  /** null: every tenant. */
  tenant_ids: string[] | null;
  issued_at: Date;
  expires_at: Date;
  issued_by: string;
  revoked_at: Date | null;
  revoked_by: string | null;
}

export async function recordServiceToken(
  db: Queryable,
  token: { jti: string; serviceId: string; scopes: readonly string[]; tenantIds: readonly string[] | null; expiresAt: Date; issuedBy: string },
): Promise<void> {
  await db('service_tokens').insert({
    jti: token.jti,
    service_id: token.serviceId,
    scopes: [...token.scopes],
    tenant_ids: token.tenantIds ? [...token.tenantIds] : null,
    expires_at: token.expiresAt,
    issued_by: token.issuedBy,
  });
}

/** Minted tokens, newest first, with their revocation; `live`: only those neither expired nor revoked. */
export function serviceTokensQuery(db: Queryable, live: boolean): Knex.QueryBuilder {
  const q = db('service_tokens as t')
    .leftJoin('service_token_revocations as r', 'r.jti', 't.jti')
    .select('t.jti', 't.service_id', 't.scopes', 't.tenant_ids', 't.issued_at', 't.expires_at', 't.issued_by', 'r.revoked_at', 'r.revoked_by')
    .orderBy([{ column: 't.issued_at', order: 'desc' }, { column: 't.jti' }]);
  if (live) q.where('t.expires_at', '>', db.fn.now()).whereNull('r.jti');
  return q;
}
