/** Revoked service tokens, by their `jti`; a service token lives at most 90 days, so a record is useless after that. */
import type { Queryable } from './knex';

export async function serviceTokenRevoked(db: Queryable, jti: string): Promise<boolean> {
  return Boolean(await db('service_token_revocations').where({ jti }).first('jti'));
}

/** Records the revocation (once: revoking again keeps the first record) and answers it. */
export async function revokeServiceToken(db: Queryable, jti: string, revokedBy: string): Promise<{ jti: string; revoked_at: Date }> {
  await db('service_token_revocations').insert({ jti, revoked_by: revokedBy }).onConflict('jti').ignore();
  return db('service_token_revocations').where({ jti }).first('jti', 'revoked_at');
}
