import { Knex } from 'knex';

/**
 * Files, collections and CSAT (issue 8). File bytes live in MinIO at `object_key`; the row is the
 * metadata. Collections are named sets of files and extracted records (polymorphic items: the
 * extracted_records table comes later, so no foreign key). CSAT: surveys, the invitations sent
 * when a conversation closes, and the responses.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table files (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      name text not null,
      size_bytes bigint not null,
      -- Sniffed from the bytes (domain/files/sniff.ts), never the client's claim.
      content_type text not null,
      sha256 text not null,
      -- tenants/<tenant>/files/<128-bit random hex>: unguessable, never the file name.
      object_key text not null unique,
      uploaded_by uuid references users (id) on delete set null,
      -- The data subject the file concerns (privacy registry: deleted on erasure).
      contact_id uuid references contacts (id),
      created_at timestamptz not null default now(),
      constraint files_size_check check (size_bytes >= 0),
      constraint files_sha256_check check (sha256 ~ '^[0-9a-f]{64}$')
    )`);
  await knex.raw('create index files_tenant_created on files (tenant_id, created_at, id)');
  await knex.raw('create index files_tenant_contact on files (tenant_id, contact_id) where contact_id is not null');

  await knex.raw(`
    create table collections (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      name text not null,
      description text,
      agent_id uuid references agents (id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint collections_name_unique unique (tenant_id, name)
    )`);
  await knex.raw('create index collections_tenant_created on collections (tenant_id, created_at, id)');

  await knex.raw(`
    create table collection_items (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      collection_id uuid not null references collections (id) on delete cascade,
      item_type text not null,
      item_id uuid not null,
      added_by uuid references users (id) on delete set null,
      added_at timestamptz not null default now(),
      constraint collection_items_type_check check (item_type in ('file', 'extracted_record')),
      constraint collection_items_unique unique (collection_id, item_type, item_id)
    )`);
  await knex.raw('create index collection_items_tenant_collection on collection_items (tenant_id, collection_id, added_at, id)');
  // Deleting an item removes its memberships in every collection.
  await knex.raw('create index collection_items_tenant_item on collection_items (tenant_id, item_type, item_id)');

  await knex.raw(`
    create table csat_surveys (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      name text not null,
      question text not null,
      scale text not null,
      channels text[] not null default '{}',
      -- null: every agent of the tenant. No foreign key: a deleted agent's survey stays readable.
      agent_id uuid,
      status text not null default 'active',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint csat_surveys_scale_check check (scale in ('csat_5', 'nps_10')),
      constraint csat_surveys_status_check check (status in ('active', 'inactive')),
      constraint csat_surveys_channels_check check (channels <@ array['whatsapp', 'email']::text[])
    )`);
  await knex.raw('create index csat_surveys_tenant_created on csat_surveys (tenant_id, created_at, id)');

  await knex.raw(`
    create table csat_invitations (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      survey_id uuid not null references csat_surveys (id) on delete cascade,
      -- Retention deletes closed conversations: their invitations go with them.
      conversation_id uuid not null references conversations (id) on delete cascade,
      contact_id uuid not null references contacts (id),
      agent_id uuid not null,
      channel text not null,
      status text not null default 'pending',
      sent_at timestamptz not null,
      expires_at timestamptz not null,
      answered_at timestamptz,
      created_at timestamptz not null default now(),
      constraint csat_invitations_channel_check check (channel in ('whatsapp', 'email')),
      constraint csat_invitations_status_check check (status in ('pending', 'answered')),
      -- One survey per conversation.
      constraint csat_invitations_conversation_unique unique (tenant_id, conversation_id)
    )`);
  await knex.raw(`create index csat_invitations_pending on csat_invitations (tenant_id, contact_id, channel, sent_at) where status = 'pending'`);

  await knex.raw(`
    create table csat_responses (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      survey_id uuid not null references csat_surveys (id),
      -- Set null when retention or erasure deletes the conversation: the score stays for aggregates.
      conversation_id uuid references conversations (id) on delete set null,
      contact_id uuid references contacts (id),
      agent_id uuid,
      invitation_id uuid references csat_invitations (id) on delete set null,
      score integer not null,
      comment text,
      responded_at timestamptz not null,
      created_at timestamptz not null default now(),
      constraint csat_responses_score_check check (score between 0 and 10)
    )`);
  await knex.raw('create index csat_responses_tenant_time on csat_responses (tenant_id, responded_at, id)');
  await knex.raw('create index csat_responses_tenant_survey on csat_responses (tenant_id, survey_id, responded_at)');
  await knex.raw('create index csat_responses_tenant_agent on csat_responses (tenant_id, agent_id, responded_at)');
  await knex.raw('create index csat_responses_tenant_contact on csat_responses (tenant_id, contact_id) where contact_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table csat_responses');
  await knex.raw('drop table csat_invitations');
  await knex.raw('drop table csat_surveys');
  await knex.raw('drop table collection_items');
  await knex.raw('drop table collections');
  await knex.raw('drop table files');
}
