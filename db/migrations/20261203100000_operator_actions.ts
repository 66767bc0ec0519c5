import { Knex } from 'knex';

/**
 * What the operator CLI (cli/) records:
 *
 * - `tenants.suspended_at`: a suspended tenant (null: active). Its logins, tokens and service
 *   tokens are refused and its outbox is held (docs/decisions/tenant-suspension.md).
 * - the audit trail's actor type `operator`: a person running the CLI, named by its `--as`.
 *   The wider check is added NOT VALID and validated apart, so the table is not locked against
 *   writes while its rows are checked; then the old check goes.
 * - `service_tokens`: every service token the CLI mints (never the token itself, which is not
 *   stored: its id, holder, grant and expiry), so an operator can list what is out there.
 *   Revocations stay in `service_token_revocations`. No tenant_id column: a token may name several
 *   tenants or all, and only the operator's paths read the table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tenants', (t) => {
    t.timestamp('suspended_at', { useTz: true });
  });

  await knex.raw(`alter table audit_log add constraint audit_actor_type_check_v2 check (actor_type in ('user','service','system','operator')) not valid`);
  await knex.raw('alter table audit_log validate constraint audit_actor_type_check_v2');
  await knex.raw('alter table audit_log drop constraint audit_actor_type_check');

  await knex.schema.createTable('service_tokens', (t) => {
    t.uuid('jti').primary();
    t.text('service_id').notNullable();
    t.specificType('scopes', 'text[]').notNullable();
    // null: every tenant ('*'); otherwise the tenant ids the token may act for.
    t.specificType('tenant_ids', 'uuid[]');
    t.timestamp('issued_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.text('issued_by').notNullable();
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('service_tokens');
  await knex.raw(`alter table audit_log add constraint audit_actor_type_check check (actor_type in ('user','service','system')) not valid`);
  await knex.raw('alter table audit_log drop constraint audit_actor_type_check_v2');
  await knex.schema.alterTable('tenants', (t) => {
    t.dropColumn('suspended_at');
  });
}
