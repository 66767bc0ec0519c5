import { Knex } from 'knex';

/**
 * A delivery record keeps what it sent for its 30 days (SPEC.md), whatever happens to the outbox
 * row (retention may delete it after a day) or to the webhook (deleting it leaves its log until
 * the delivery sweep): the canonical payload is stored on the record, and the record no longer
 * hangs on the webhook by a cascading foreign key.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table webhook_deliveries add column payload jsonb`);
  // Records written before: their payload rebuilt from the outbox row while it is still kept
  // (the canonical envelope of domain/webhooks/payload.ts; jsonb does not keep key order anyway).
  await knex.raw(`
    update webhook_deliveries d
       set payload = jsonb_build_object(
             'id', e.id, 'type', e.type, 'tenant_id', e.tenant_id,
             'occurred_at', to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'api_version', 'v1', 'data', e.data)
      from outbox_events e
     where e.tenant_id = d.tenant_id and e.id = d.event_id and d.payload is null`);
  await knex.raw(`alter table webhook_deliveries drop constraint webhook_deliveries_webhook_id_foreign`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`delete from webhook_deliveries d where not exists (select 1 from webhooks w where w.id = d.webhook_id)`);
  await knex.raw(`alter table webhook_deliveries add constraint webhook_deliveries_webhook_id_foreign foreign key (webhook_id) references webhooks (id) on delete cascade`);
  await knex.raw(`alter table webhook_deliveries drop column payload`);
}
