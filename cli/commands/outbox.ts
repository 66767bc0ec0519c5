/** `outbox`: the backlog and its parked events, and requeueing one (services/internal.ts, as the internal API does). */
import { Command, Option } from 'commander';
import { toOutboxItem } from '../../api/resources/outbox-event';
import { outboxOverview, requeueParkedEvent } from '../../services/internal';
import { fields, pageText, table } from '../output';
import { pageOf, withPage } from '../options';
import type { Perform } from '../perform';

export function registerOutbox(program: Command, perform: Perform): void {
  const outbox = program.command('outbox').description('the outbox backlog the dispatcher has not finished with, and requeueing a parked event');

  withPage(
    outbox
      .command('backlog')
      .description('counts (pending, retrying, parked, held for suspended tenants, oldest pending age) and one page of parked or retrying events')
      .addOption(new Option('--status <status>', 'which events to list').choices(['parked', 'retrying']).default('parked'))
      .option('--tenant <tenant>', "only this tenant's (id or slug)"),
  ).action((options: { status: 'parked' | 'retrying'; tenant?: string; limit: number; skip: number }, command: Command) =>
    perform(command, async (rt) => {
      const overview = await rt.inTenantOrAll(options.tenant, (db, tenantId) => outboxOverview(db, tenantId ? [tenantId] : '*', options.status, pageOf(options)));
      const items = overview.items.map(toOutboxItem);
      const counts = fields([
        ['pending', overview.pending],
        ['retrying', overview.retrying],
        ['parked', overview.parked],
        ['held (suspended tenants)', overview.held],
        ['oldest pending (s)', Math.round(overview.oldest_pending_seconds)],
      ]);
      const rows = table(items, [
        ['id', (e) => e.id],
        ['tenant', (e) => e.tenant_id],
        ['type', (e) => e.type],
        ['attempts', (e) => e.attempts],
        [options.status === 'parked' ? 'parked at' : 'next attempt', (e) => (options.status === 'parked' ? e.parked_at : e.next_attempt_at)],
        ['last error', (e) => e.last_error],
      ]);
      return { json: { ...overview, items }, text: `${counts}\n\n${options.status} events:\n${pageText(overview, rows)}` };
    }),
  );

  outbox
    .command('requeue')
    .description('return a parked event to the dispatcher: tried again at once with a fresh attempt count (audited in its tenant)')
    .argument('<event>', "the event's id")
    .action((eventId: string, _options: unknown, command: Command) =>
      perform(command, async (rt) => {
        const row = await requeueParkedEvent(rt.db(), '*', eventId, { actor: rt.actor, requestId: null });
        return { json: toOutboxItem(row), text: `requeued ${row.id} (${row.type}, tenant ${row.tenant_id})` };
      }),
    );
}
