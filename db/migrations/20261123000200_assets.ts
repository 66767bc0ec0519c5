import { Knex } from 'knex';

/** Industrial assets and their parent-child hierarchy (a parent is always of the same tenant). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('assets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_id').notNullable().references('tenants.id');
    t.text('name').notNullable();
    t.text('type').notNullable();
    t.uuid('parent_id');
    t.jsonb('location').notNullable().defaultTo('{}');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['tenant_id', 'parent_id']);
    t.index(['tenant_id', 'created_at']);
  });
  // (tenant_id, id) unique lets the parent reference carry the tenant: a parent in another
  // tenant is impossible in the data, not only in the API.
  await knex.raw('alter table assets add constraint assets_tenant_id_id_unique unique (tenant_id, id)');
  await knex.raw(`alter table assets add constraint assets_parent_same_tenant
                  foreign key (tenant_id, parent_id) references assets (tenant_id, id)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('assets');
}
