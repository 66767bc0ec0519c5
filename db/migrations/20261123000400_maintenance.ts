import { Knex } from 'knex';

/**
 * Preventive maintenance: plans (each driven by its `maintenance-plan/<tenant>/<plan>` workflow),
 * tasks (work orders) with gap-free codes per tenant and prefix, the execution history, counter
 * readings and optimization drafts. Plans are soft-deleted so their history and tasks stay.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table maintenance_plans (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      name text not null,
      description text,
      status text not null default 'active',
      asset_ids uuid[] not null default '{}',
      trigger jsonb not null,
      checklist jsonb not null default '[]',
      assignee_id uuid,
      priority text not null default 'medium',
      estimated_minutes integer,
      task_prefix text not null default 'PM',
      notify jsonb,
      on_open_task text not null default 'skip',
      generate_ahead text not null default 'P0D',
      -- Read model of the workflow's schedule: written by the workflow's activities and by the API
      -- from the workflow's answers, ordered by schedule_seq so a late writer never goes back.
      next_due_at timestamptz,
      next_due_trigger text,
      interval_hours numeric,
      schedule_seq bigint not null default 0,
      -- Incremented by every change of the plan; optimization drafts remember the version they saw.
      version integer not null default 1,
      created_by uuid,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz,
      constraint maintenance_plans_tenant_id_id_unique unique (tenant_id, id),
      constraint maintenance_plans_status_check check (status in ('active', 'paused', 'archived')),
      constraint maintenance_plans_priority_check check (priority in ('low', 'medium', 'high', 'critical')),
      constraint maintenance_plans_on_open_task_check check (on_open_task in ('skip', 'stack'))
    )`);
  await knex.raw('create index maintenance_plans_by_tenant on maintenance_plans (tenant_id, created_at) where deleted_at is null');
  await knex.raw('create index maintenance_plans_assets on maintenance_plans using gin (asset_ids)');

  await knex.raw(`
    create table maintenance_tasks (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      plan_id uuid,
      asset_ids uuid[] not null default '{}',
      task_code text not null,
      title text not null,
      checklist jsonb not null default '[]',
      assignee_id uuid,
      priority text not null default 'medium',
      estimated_minutes integer,
      status text not null default 'open',
      kind text not null default 'preventive',
      trigger text,
      due_at timestamptz not null,
      -- The plan's interval when the task was made: compliance grace (10 %) and the overdue time.
      interval_hours numeric,
      started_at timestamptz,
      completed_at timestamptz,
      completed_by uuid,
      cancelled_at timestamptz,
      overdue_at timestamptz,
      notes text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint maintenance_tasks_code_unique unique (tenant_id, task_code),
      constraint maintenance_tasks_plan_fk foreign key (tenant_id, plan_id) references maintenance_plans (tenant_id, id),
      constraint maintenance_tasks_status_check check (status in ('open', 'in_progress', 'done', 'cancelled')),
      constraint maintenance_tasks_kind_check check (kind in ('preventive', 'corrective', 'inspection')),
      constraint maintenance_tasks_trigger_check check (trigger in ('calendar', 'counter'))
    )`);
  await knex.raw('create index maintenance_tasks_by_plan on maintenance_tasks (tenant_id, plan_id, status)');
  await knex.raw('create index maintenance_tasks_by_due on maintenance_tasks (tenant_id, due_at)');
  await knex.raw('create index maintenance_tasks_assets on maintenance_tasks using gin (asset_ids)');
  await knex.raw('create index maintenance_tasks_by_assignee on maintenance_tasks (tenant_id, assignee_id, status)');

  // Gap-free numbers per (tenant, prefix): taken with `update ... set next = next + 1 returning`
  // in the transaction that inserts the task, so a rolled-back task gives its number back.
  await knex.raw(`
    create table maintenance_task_sequences (
      tenant_id uuid not null references tenants (id),
      prefix text not null,
      next bigint not null default 1,
      primary key (tenant_id, prefix)
    )`);

  await knex.raw(`
    create table maintenance_executions (
      execution_id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      plan_id uuid not null,
      task_id uuid,
      trigger text not null,
      executed_at timestamptz not null,
      executed_by text not null,
      outcome text not null,
      due_at timestamptz,
      -- On a skip: the plan's open task that was kept.
      kept_task_id uuid,
      thresholds_crossed integer,
      -- Idempotency of the workflow's activity: the due time served or the API's request id.
      idempotency_key text not null,
      constraint maintenance_executions_key_unique unique (tenant_id, plan_id, idempotency_key),
      constraint maintenance_executions_plan_fk foreign key (tenant_id, plan_id) references maintenance_plans (tenant_id, id),
      constraint maintenance_executions_trigger_check check (trigger in ('calendar', 'counter')),
      constraint maintenance_executions_outcome_check check (outcome in ('created', 'skipped'))
    )`);
  await knex.raw('create index maintenance_executions_by_plan on maintenance_executions (tenant_id, plan_id, executed_at desc)');

  await knex.raw(`
    create table maintenance_counter_readings (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      plan_id uuid not null,
      counter text not null,
      value double precision not null,
      source text not null,
      reset boolean not null default false,
      -- Usage since the plan started, monotonic across resets (domain/maintenance/counter.ts).
      total double precision not null,
      thresholds_crossed integer not null default 0,
      task_id uuid,
      read_at timestamptz not null,
      request_id text not null,
      created_at timestamptz not null default now(),
      constraint maintenance_counter_readings_request_unique unique (tenant_id, plan_id, request_id),
      constraint maintenance_counter_readings_plan_fk foreign key (tenant_id, plan_id) references maintenance_plans (tenant_id, id)
    )`);
  await knex.raw('create index maintenance_counter_readings_by_plan on maintenance_counter_readings (tenant_id, plan_id, read_at desc)');

  await knex.raw(`
    create table maintenance_optimization_drafts (
      id uuid primary key default gen_random_uuid(),
      tenant_id uuid not null references tenants (id),
      plan_id uuid not null,
      plan_version integer not null,
      status text not null default 'draft',
      suggestions jsonb not null,
      basis jsonb not null,
      created_by uuid,
      created_at timestamptz not null default now(),
      decided_at timestamptz,
      decided_by uuid,
      constraint maintenance_optimization_drafts_plan_fk foreign key (tenant_id, plan_id) references maintenance_plans (tenant_id, id),
      constraint maintenance_optimization_drafts_status_check check (status in ('draft', 'approved', 'rejected'))
    )`);
  await knex.raw('create index maintenance_optimization_drafts_by_plan on maintenance_optimization_drafts (tenant_id, plan_id, created_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'maintenance_optimization_drafts',
    'maintenance_counter_readings',
    'maintenance_executions',
    'maintenance_task_sequences',
    'maintenance_tasks',
    'maintenance_plans',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
