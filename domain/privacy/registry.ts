/**
 * The one registry of personal-data categories (issue 9). Export, erasure, retention and purge all
 * iterate over it, so a table added here is covered by all four, and a table with a subject link
 * that is missing here fails test/api/privacy.test.ts (information_schema scan).
 *
 * Order matters: erasure and purge walk it top to bottom, so dependants come before what they
 * reference (messages before conversations before contacts). Adding files, extracted records or
 * CSAT responses is one entry each.
 */
import type { RetentionKey } from './settings';

/** How a row reaches the data subject (a `contacts` row). */
export type SubjectLink =
  /** The subject table itself: the row's `id` is the subject id. */
  | { kind: 'self' }
  /** A column of the row holds the subject id. */
  | { kind: 'column'; column: string }
  /** The row references a parent row whose column holds the subject id. */
  | { kind: 'join'; column: string; parent: { table: string; subjectColumn: string } }
  /** Audit trail: rows carry the salted subject hash (and a raw reference erasure clears). */
  | { kind: 'audit' }
  /** Operational data with no subject: covered by retention and purge only. */
  | { kind: 'none' };

/** What erasure does to a linked row. */
export type ErasureAction =
  | { kind: 'delete' }
  /** Keep the row (it matters to operations) but null the personal fields and the link. */
  | { kind: 'anonymise'; nullify: string[] }
  /** Clear the audit subject columns; the hash stays when the audit is preserved. */
  | { kind: 'audit_subject' }
  | { kind: 'none' };

export interface DataCategory {
  /** Stable name: the export's file name (`<name>.json`) and the key of erasure/purge counts. */
  name: string;
  table: string;
  link: SubjectLink;
  erasure: ErasureAction;
  /** Columns written to the export (never tenant_id or internal hashes). Empty: not exported. */
  exportColumns: string[];
  /** Ordering/keyset column for batches (unique per row). */
  keyColumn: string;
  retention?: {
    setting: RetentionKey;
    timestampColumn: string;
    /** Only rows where this column is set are expired (an undispatched outbox row is a delivery still owed). */
    onlyWhereSet?: string;
  };
  /** Column holding a MinIO object key that belongs to the row: deleted with it. */
  objectKeyColumn?: string;
}

/** Operational data with no subject: covered by retention and purge only, never exported or erased. */
const retainedOnly = (name: string, table: string, retention: NonNullable<DataCategory['retention']>, keyColumn = 'id'): DataCategory => ({
  name,
  table,
  link: { kind: 'none' },
  erasure: { kind: 'none' },
  exportColumns: [],
  keyColumn,
  retention,
});

export const PRIVACY_CATEGORIES: readonly DataCategory[] = [
  // Issue 8 (files and CSAT): before conversations and contacts, which they reference.
  {
    name: 'files',
    table: 'files',
    link: { kind: 'column', column: 'contact_id' },
    erasure: { kind: 'delete' },
    exportColumns: ['id', 'name', 'size_bytes', 'content_type', 'sha256', 'created_at'],
    keyColumn: 'id',
    objectKeyColumn: 'object_key',
  },
  {
    name: 'csat_invitations',
    table: 'csat_invitations',
    link: { kind: 'column', column: 'contact_id' },
    erasure: { kind: 'delete' },
    exportColumns: ['id', 'survey_id', 'conversation_id', 'channel', 'status', 'sent_at', 'expires_at', 'answered_at'],
    keyColumn: 'id',
  },
  {
    name: 'csat_responses',
    table: 'csat_responses',
    link: { kind: 'column', column: 'contact_id' },
    // The score stays for the aggregates; the person and their words go.
    erasure: { kind: 'anonymise', nullify: ['contact_id', 'comment'] },
    exportColumns: ['id', 'survey_id', 'conversation_id', 'agent_id', 'score', 'comment', 'responded_at'],
    keyColumn: 'id',
  },
  // Issue 8 (extraction): corrections before their records, records before contacts.
  {
    name: 'extracted_record_corrections',
    table: 'extracted_record_corrections',
    link: { kind: 'join', column: 'record_id', parent: { table: 'extracted_records', subjectColumn: 'subject_contact_id' } },
    erasure: { kind: 'delete' },
    exportColumns: ['id', 'record_id', 'field', 'original_value', 'corrected_value', 'corrected_at', 'reason'],
    keyColumn: 'id',
    // Deleted with their record (foreign key cascade) when retention removes it.
  },
  {
    name: 'extracted_records',
    table: 'extracted_records',
    link: { kind: 'column', column: 'subject_contact_id' },
    erasure: { kind: 'delete' },
    exportColumns: ['id', 'template_id', 'file_id', 'fields', 'engine', 'model', 'created_at', 'updated_at'],
    keyColumn: 'id',
    retention: { setting: 'extracted_records_days', timestampColumn: 'created_at' },
  },
  // The jobs: ids and status once finished (their input text is transient, see the migration);
  // kept as long as the records they made.
  retainedOnly('extractions', 'extractions', { setting: 'extracted_records_days', timestampColumn: 'created_at' }),
  {
    name: 'messages',
    table: 'messages',
    link: { kind: 'join', column: 'conversation_id', parent: { table: 'conversations', subjectColumn: 'contact_id' } },
    erasure: { kind: 'delete' },
    exportColumns: ['id', 'conversation_id', 'direction', 'subject', 'body', 'created_at'],
    keyColumn: 'id',
    retention: { setting: 'conversations_days', timestampColumn: 'created_at' },
  },
  {
    // Arguments and results may quote the subject's message (http tools) or name their asset.
    name: 'tool_calls',
    table: 'tool_calls',
    link: { kind: 'join', column: 'conversation_id', parent: { table: 'conversations', subjectColumn: 'contact_id' } },
    erasure: { kind: 'delete' },
    exportColumns: ['id', 'conversation_id', 'name', 'arguments', 'result', 'status', 'created_at'],
    keyColumn: 'id',
    retention: { setting: 'conversations_days', timestampColumn: 'created_at' },
  },
  {
    name: 'conversations',
    table: 'conversations',
    link: { kind: 'column', column: 'contact_id' },
    erasure: { kind: 'delete' },
    exportColumns: ['id', 'agent_id', 'channel', 'status', 'started_at', 'closed_at'],
    keyColumn: 'id',
    // By closing time: an open conversation is not cut from under its recent messages, and a
    // closed one's messages are all older than its closing.
    retention: { setting: 'conversations_days', timestampColumn: 'closed_at' },
  },
  {
    name: 'maintenance_tasks',
    table: 'maintenance_tasks',
    link: { kind: 'column', column: 'contact_id' },
    // Tasks belong to the plant's history: keep them, drop the person and free text about them.
    erasure: { kind: 'anonymise', nullify: ['contact_id', 'notes'] },
    exportColumns: ['id', 'task_code', 'title', 'status', 'kind', 'due_at', 'completed_at', 'notes', 'created_at'],
    keyColumn: 'id',
  },
  {
    name: 'privacy_exports',
    table: 'privacy_exports',
    link: { kind: 'column', column: 'subject_id' },
    erasure: { kind: 'delete' },
    exportColumns: [],
    keyColumn: 'id',
    objectKeyColumn: 'object_key',
  },
  {
    name: 'audit_trail',
    table: 'audit_log',
    link: { kind: 'audit' },
    erasure: { kind: 'audit_subject' },
    exportColumns: ['seq', 'occurred_at', 'actor_type', 'actor_id', 'action', 'resource_type', 'resource_id', 'details'],
    keyColumn: 'seq',
    retention: { setting: 'audit_trail_days', timestampColumn: 'occurred_at' },
  },
  retainedOnly('machine_events', 'machine_events', { setting: 'machine_events_days', timestampColumn: 'received_at' }),
  // Every copy of machine data follows machine_events_days (issue 21): the readings themselves...
  // No surrogate key: the sender's event id is unique per tenant, and every batch is per tenant.
  retainedOnly('sensor_readings', 'sensor_readings', { setting: 'machine_events_days', timestampColumn: 'received_at' }, 'sender_event_id'),
  // ...and the outbox rows that carried events to webhooks and agents, once dispatched. Events of
  // every kind live there; they are kept as long as the machine events they mostly are.
  retainedOnly('outbox_events', 'outbox_events', { setting: 'machine_events_days', timestampColumn: 'created_at', onlyWhereSet: 'dispatched_at' }),
  // By resolution time: unresolved alerts (resolved_at null) are never swept.
  retainedOnly('alerts', 'asset_alerts', { setting: 'alerts_days', timestampColumn: 'resolved_at' }),
  {
    // Last: everything above references the subject row.
    name: 'contact',
    table: 'contacts',
    link: { kind: 'self' },
    erasure: { kind: 'delete' },
    exportColumns: ['id', 'name', 'phone', 'email', 'created_at', 'updated_at'],
    keyColumn: 'id',
  },
];

/**
 * Tables that hold contact-like columns but are not about data subjects: staff logins, the tenant's
 * own channel accounts, and system notifications to staff. The registry completeness test skips
 * them, and only them.
 */
export const NOT_SUBJECT_DATA: Readonly<Record<string, string>> = {
  users: 'staff accounts of the tenant, not data subjects',
  email_accounts: "the tenant's own sending mailboxes",
  whatsapp_numbers: "the tenant's own business numbers",
  notifications: 'notifications to staff recipients',
};

/**
 * Every other table, with why it is outside retention: configuration, current state (one row per
 * thing, overwritten), records of work the plant keeps, or data with its own sweep. The registry
 * completeness test (test/api/privacy.test.ts) fails on a table in neither list, so a new table
 * is classified when it is created.
 */
export const OUTSIDE_RETENTION: Readonly<Record<string, string>> = {
  ...NOT_SUBJECT_DATA,
  knex_migrations: 'schema history',
  knex_migrations_lock: 'schema history',
  tenants: 'configuration: the tenant itself',
  tenant_settings: 'configuration: retention and redaction settings',
  refresh_tokens: 'sessions: expire on their own; deleted with their session',
  auth_sessions: 'sessions: one row per login and its revocation, deleted with the user',
  service_token_revocations: 'revoked service token ids, no personal data; useless 90 days after revocation',
  service_tokens: "the operator's record of minted service tokens (holder service, grant, expiry, the operator's name; never the token)",
  rate_limits: 'counters of the current window, overwritten',
  assets: 'configuration: the asset register',
  asset_baselines: 'configuration: baselines of monitored parameters',
  asset_parameter_latest: 'current state: the newest reading of each series and a short bounded window, overwritten',
  asset_health: 'current state: one row per asset, overwritten',
  asset_conditions: 'current state: one row per asset, overwritten',
  asset_inspections: "records of work: the plant's inspection history",
  asset_simulations: 'records of work: what-if runs people asked for',
  predictive_configs: 'configuration: prognostics settings per asset',
  maintenance_plans: 'configuration: preventive plans',
  maintenance_task_sequences: 'configuration: gap-free task code counters',
  maintenance_executions: "records of work: the plan's execution history (compliance is computed from it)",
  maintenance_counter_readings: "records of work: the meter history a counter plan's due dates come from",
  maintenance_counter_sources: 'records of work: the free-text origin of those meter readings, deleted with the tenant',
  maintenance_optimization_drafts: 'drafts people asked for; small, per plan',
  agents: 'configuration: agents',
  tools: 'configuration: agent tools',
  machine_agent_runs: 'records of work: what a machine agent did and why (ids, action, reply), like an audit of actions',
  webhooks: 'configuration: webhooks',
  webhook_deliveries: 'delivery log with the payloads sent: swept after 30 days by its own schedule (webhook-delivery-retention), also for deleted webhooks',
  webhook_delivery_leases: 'in-flight attempts only: deleted when the attempt ends or expires',
  webhook_circuit_breakers: "current state: one row per webhook (its endpoint's circuit breaker), overwritten, deleted with the webhook",
  webhook_parked_deliveries: 'in-flight deliveries waiting behind an open circuit (ids and times, no payload): deleted when the delivery attempts or ends',
  webhook_parking_counts: 'current state: one count per tenant of its parked deliveries, overwritten',
  privacy_erasures: 'the record that an erasure happened (ids and counts, no personal data)',
  collections: 'configuration: file collections',
  collection_items: 'membership of files in collections: deleted with the file',
  csat_surveys: 'configuration: surveys',
  extraction_templates: 'configuration: extraction templates',
  extraction_chunks: 'transient input of a running extraction, deleted when it finishes',
  brandings: 'configuration: report brandings',
  logo_images: "derived from a file: the logo the service re-encoded from it, deleted with the file (files' retention and erasure apply)",
  scheduled_reports: 'configuration: report schedules',
  report_jobs: 'records of work: generated reports (their files in the object store)',
  scheduled_report_runs: 'records of work: the runs of a schedule (ids, status, the configured recipients each mailed or withheld), deleted with the schedule',
  outside_recipient_days: 'current state: per tenant and day, how many outside addresses reports were mailed to (no addresses); 30 days kept',
};

/** Categories a subject's rows can be found in (export and erasure). */
export const subjectCategories = (): DataCategory[] => PRIVACY_CATEGORIES.filter((c) => c.link.kind !== 'none');
/** Categories with a retention setting (sweep and purge). */
export const retentionCategories = (): Array<DataCategory & { retention: NonNullable<DataCategory['retention']> }> =>
  PRIVACY_CATEGORIES.filter((c): c is DataCategory & { retention: NonNullable<DataCategory['retention']> } => c.retention !== undefined);
export const exportedCategories = (): DataCategory[] => subjectCategories().filter((c) => c.exportColumns.length > 0);

export function categoryByName(name: string): DataCategory {
  const found = PRIVACY_CATEGORIES.find((c) => c.name === name);
  if (!found) throw new Error(`unknown privacy category ${name}`);
  return found;
}
