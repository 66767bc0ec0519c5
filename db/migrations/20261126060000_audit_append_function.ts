import type { Knex } from 'knex';

/**
 * audit_append(): the audit chain's append in one round trip (issue 19: it was three on every
 * mutation, the lock, the last row and the insert). The protocol is the one db/audit.ts used
 * before, so a process of the previous release appending at the same time stays serialised with
 * it: the tenant's transaction-scoped advisory lock, then the last row, read by a statement that
 * starts after the lock is held (in a function each statement takes its own snapshot under READ
 * COMMITTED, so it sees every append committed before the lock was granted), then the insert.
 * The hash is the chain's (domain/audit/chain.ts): sha256(prev_hash || '\n' || body), where the
 * caller sends the canonical body split around the seq that only this function knows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function audit_append(
      p_lock_key text, p_genesis text, p_body_head text, p_body_tail text,
      p_tenant uuid, p_occurred_at timestamptz, p_actor_type text, p_actor_id text, p_action text,
      p_resource_type text, p_resource_id text, p_request_id text, p_details jsonb,
      p_subject_ref text, p_subject_hash text, p_subject_nonce text, p_subject_digest text)
    returns table (appended_seq bigint, appended_hash text) language plpgsql as $$
    declare
      v_seq bigint;
      v_prev text;
    begin
      perform pg_advisory_xact_lock(hashtextextended(p_lock_key, 42));
      select a.seq, a.hash into v_seq, v_prev from audit_log a where a.tenant_id = p_tenant order by a.seq desc limit 1;
      appended_seq := coalesce(v_seq, 0) + 1;
      v_prev := coalesce(v_prev, p_genesis);
      appended_hash := encode(sha256(convert_to(v_prev || E'\\n' || p_body_head || appended_seq::text || p_body_tail, 'UTF8')), 'hex');
      insert into audit_log (tenant_id, seq, occurred_at, actor_type, actor_id, action, resource_type, resource_id, request_id, details,
                             subject_ref, subject_hash, subject_nonce, subject_digest, prev_hash, hash)
      values (p_tenant, appended_seq, p_occurred_at, p_actor_type, p_actor_id, p_action, p_resource_type, p_resource_id, p_request_id, p_details,
              p_subject_ref, p_subject_hash, p_subject_nonce, p_subject_digest, v_prev, appended_hash);
      return next;
    end $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function audit_append(text, text, text, text, uuid, timestamptz, text, text, text, text, text, text, jsonb, text, text, text, text)');
}
