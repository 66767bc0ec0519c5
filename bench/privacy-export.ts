/**
 * Subject export at volume (issue 19): a data subject with 100 000 messages is exported by the
 * real activity (PostgreSQL pages -> ZIP writer -> MinIO upload) and timed; the process's heap is
 * sampled throughout. Streaming means the memory an export needs does not grow with its rows, so
 * the same export of 10 000 rows is measured for comparison: "flat" is the 100 000-row peak growth
 * within 1.5x the 10 000-row one (plus 16 MiB of allocator noise), each from the heap after a full
 * collection (the bench process runs with --expose-gc; without it the baseline held whatever garbage
 * the benches before had left, and the growth swung from 3.7 to 38.7 MiB at 10 000 rows).
 */
import { randomUUID } from 'node:crypto';
import { createPrivacyExportActivities } from '../activities/privacy/exports';
import type { AppDeps } from '../api/context';
import { provisionTenant } from '../db/tenants';
import { meets, TARGETS } from './targets';

const MIB = 1024 * 1024;
const MESSAGES_PER_CONVERSATION = 1_000;

/** A subject (contact) of a fresh tenant with `rows` messages over conversations of 1 000, inserted by PostgreSQL itself. */
export async function subjectWithMessages(deps: AppDeps, rows: number): Promise<{ tenantId: string; exportId: string }> {
  const db = deps.db;
  const tenant = await provisionTenant(db, {
    name: `Export bench ${randomUUID().slice(0, 8)}`,
    plan: 'enterprise',
    adminEmail: `bench-${randomUUID()}@example.com`,
    adminPassword: randomUUID(),
  });
  const tenantId = tenant.tenant_id;
  const [contact] = await db('contacts')
    .insert({ tenant_id: tenantId, name: 'Bench Subject', email: `subject-${randomUUID()}@example.com` })
    .returning('id');
  const conversations = Math.ceil(rows / MESSAGES_PER_CONVERSATION);
  await db.raw(
    `insert into conversations (tenant_id, agent_id, contact_id, channel)
     select ?, gen_random_uuid(), ?, 'whatsapp' from generate_series(1, ?)`,
    [tenantId, contact.id, conversations],
  );
  await db.raw(
    `insert into messages (tenant_id, conversation_id, direction, body)
     select c.tenant_id, c.id, case when n % 2 = 0 then 'inbound' else 'outbound' end,
            'Message ' || n || ': the pump on line 3 vibrates again since the night shift, please send someone to look at the bearing.'
     from conversations c cross join generate_series(1, ?) n
     where c.tenant_id = ? and c.contact_id = ?
     limit ?`,
    [MESSAGES_PER_CONVERSATION, tenantId, contact.id, rows],
  );
  const [row] = await db('privacy_exports').insert({ tenant_id: tenantId, subject_id: contact.id, format: 'json', status: 'pending' }).returning('id');
  return { tenantId, exportId: row.id };
}

async function measuredExport(deps: AppDeps, rows: number) {
  const ref = await subjectWithMessages(deps, rows);
  const activities = createPrivacyExportActivities({ db: deps.db, objectStore: deps.objectStore });
  global.gc?.();
  const baseline = process.memoryUsage();
  let peakHeap = baseline.heapUsed;
  let peakRss = baseline.rss;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 20);
  const started = process.hrtime.bigint();
  try {
    const result = await activities.buildSubjectExport(ref);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    global.gc?.();
    const retainedMiB = (process.memoryUsage().heapUsed - baseline.heapUsed) / MIB;
    return { seconds, rows: result.rows, bytes: result.bytes, heapGrowthMiB: (peakHeap - baseline.heapUsed) / MIB, rssGrowthMiB: (peakRss - baseline.rss) / MIB, retainedMiB };
  } finally {
    clearInterval(sampler);
  }
}

export async function runPrivacyExportBench(deps: AppDeps): Promise<Record<string, string | number>> {
  const small = await measuredExport(deps, 10_000);
  const large = await measuredExport(deps, 100_000);
  const flat = large.heapGrowthMiB <= small.heapGrowthMiB * 1.5 + 16;
  return {
    export_10k_seconds: small.seconds.toFixed(2),
    export_10k_peak_heap_growth_mib: small.heapGrowthMiB.toFixed(1),
    export_100k_rows: large.rows,
    export_100k_zip_mib: (large.bytes / MIB).toFixed(1),
    export_100k_seconds: large.seconds.toFixed(2),
    export_100k_rows_per_second: Math.round(large.rows / large.seconds),
    export_100k_peak_heap_growth_mib: large.heapGrowthMiB.toFixed(1),
    export_100k_peak_rss_growth_mib: large.rssGrowthMiB.toFixed(1),
    // What the heap still holds after the export and a full collection: 0 when nothing leaks.
    export_100k_retained_after_mib: large.retainedMiB.toFixed(1),
    target_export_under_30s: meets(TARGETS.export, large.seconds) ? 'met' : 'NOT met',
    target_export_memory_flat: flat ? 'met' : 'NOT met',
  };
}
