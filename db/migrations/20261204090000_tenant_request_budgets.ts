import { Knex } from 'knex';
import { enableTenantRowSecurity } from '../row-security';

/**
 * The per-tenant request budget's own counters (api/rate-limiter.ts), one row per tenant with both
 * windows: the burst (requests in the current second) and the minute, each as its count and when it
 * ends (epoch ms). Until now they were two rows of rate-limiter-flexible's `rate_limits`, written by
 * hand in the library's layout; that table is left to the login and inbound limiters, which clear
 * the old rows as they expire. UNLOGGED like it: counters live for a minute, so they skip the WAL,
 * and a crash empties the table, which only forgives the current window.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create unlogged table tenant_request_budgets (
      tenant_id uuid primary key references tenants (id) on delete cascade,
      burst_points integer not null,
      burst_ends bigint not null,
      minute_points integer not null,
      minute_ends bigint not null
    )`);
  await enableTenantRowSecurity(knex, 'tenant_request_budgets');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table tenant_request_budgets');
}
