import { Knex } from 'knex';

/**
 * The audit trail's purge path runs under its own database role (issue 17). Before this, any
 * session of the application's role could lift the append-only guard by setting
 * `app.audit_retention_purge`. Now the guard lets a DELETE through only when the current role is
 * `audit_purger`, a NOLOGIN role nobody is a member of; the one way in is
 * `audit_log_purge_expired(...)`, a SECURITY DEFINER function owned by that role, which deletes a
 * bounded batch of one tenant's oldest rows and nothing younger than 365 days (the guard checks the
 * age again, whoever calls).
 *
 * The migrating role needs CREATEROLE (or an administrator creates `audit_purger NOLOGIN` first);
 * a non-superuser migrator is made a member only for the ownership change and removed again.
 */
export const AUDIT_PURGER_ROLE = 'audit_purger';

export async function up(knex: Knex): Promise<void> {
  const { rows } = await knex.raw(`select current_schema() as schema, (select rolsuper from pg_roles where rolname = current_user) as superuser`);
  const { schema, superuser } = rows[0] as { schema: string; superuser: boolean };
  await knex.raw(`
    do $$ begin
      if not exists (select 1 from pg_roles where rolname = '${AUDIT_PURGER_ROLE}') then
        create role ${AUDIT_PURGER_ROLE} nologin;
      end if;
    exception
      -- Another database of the cluster migrating at the same moment created it first.
      when duplicate_object or unique_violation then null;
      when insufficient_privilege then
      raise exception 'creating role ${AUDIT_PURGER_ROLE} needs CREATEROLE: run "create role ${AUDIT_PURGER_ROLE} nologin" as an administrator, then migrate again';
    end $$`);
  await knex.raw(`grant usage on schema ?? to ${AUDIT_PURGER_ROLE}`, [schema]);
  await knex.raw(`grant select, delete on audit_log to ${AUDIT_PURGER_ROLE}`);

  await knex.raw(auditGuard(`current_user = '${AUDIT_PURGER_ROLE}'`));

  await knex.raw(
    `create function audit_log_purge_expired(p_tenant uuid, p_from timestamptz, p_before timestamptz, p_limit integer)
     returns integer language plpgsql security definer set search_path = pg_catalog, ${quoteIdent(schema)} as $$
     declare
       deleted integer;
     begin
       -- Oldest first: the remaining chain still verifies from its new head.
       delete from audit_log where tenant_id = p_tenant and seq in (
         select seq from audit_log
         where tenant_id = p_tenant and occurred_at < p_before and (p_from is null or occurred_at >= p_from)
         order by seq limit greatest(p_limit, 0));
       get diagnostics deleted = row_count;
       return deleted;
     end $$`,
  );
  await knex.raw(`revoke all on function audit_log_purge_expired(uuid, timestamptz, timestamptz, integer) from public`);
  await knex.raw(`grant execute on function audit_log_purge_expired(uuid, timestamptz, timestamptz, integer) to current_user`);
  // A non-superuser may only give an object to a role it can become: join for the change, then leave.
  const joined = !superuser && !(await isMemberOfPurger(knex));
  if (joined) await knex.raw(`grant ${AUDIT_PURGER_ROLE} to current_user`);
  await knex.raw(`alter function audit_log_purge_expired(uuid, timestamptz, timestamptz, integer) owner to ${AUDIT_PURGER_ROLE}`);
  if (joined) await knex.raw(`revoke ${AUDIT_PURGER_ROLE} from current_user`);
}

/**
 * The append-only guard: only erasure's clearing of the subject columns may update a row, and a
 * row past the minimum audit retention of 365 days may be deleted when `mayDelete` holds.
 */
function auditGuard(mayDelete: string): string {
  return `
    create or replace function audit_log_guard() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' then
        if (to_jsonb(new) - array['subject_ref','subject_hash','subject_nonce'])
             = (to_jsonb(old) - array['subject_ref','subject_hash','subject_nonce'])
           and (new.subject_ref is null or new.subject_ref = old.subject_ref)
           and (new.subject_hash is null or new.subject_hash = old.subject_hash)
           and (new.subject_nonce is null or new.subject_nonce = old.subject_nonce) then
          return new;
        end if;
        raise exception 'audit_log is append-only' using errcode = 'insufficient_privilege';
      elsif tg_op = 'DELETE' then
        if ${mayDelete} and old.occurred_at < now() - interval '365 days' then
          return old;
        end if;
        raise exception 'audit_log is append-only' using errcode = 'insufficient_privilege';
      end if;
      raise exception 'audit_log is append-only' using errcode = 'insufficient_privilege';
    end $$`;
}

async function isMemberOfPurger(knex: Knex): Promise<boolean> {
  const { rows } = await knex.raw(`select pg_has_role(current_user, '${AUDIT_PURGER_ROLE}', 'MEMBER') as member`);
  return Boolean(rows[0]?.member);
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function if exists audit_log_purge_expired(uuid, timestamptz, timestamptz, integer)');
  await knex.raw(auditGuard(`coalesce(current_setting('app.audit_retention_purge', true), '') = 'on'`));
  await knex.raw(`revoke select, delete on audit_log from ${AUDIT_PURGER_ROLE}`);
}
