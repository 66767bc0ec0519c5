/**
 * `webhooks`: the webhooks in trouble, a webhook's deliveries that failed for good and sending
 * them again, its circuit breaker and its reset, the deliveries parked behind open circuits and
 * their release (services/webhook-operations.ts and the recover and redeliver of
 * services/webhooks.ts).
 */
import { Command } from 'commander';
import { runUnit } from '../../db/unit-of-work';
import type { BreakerState } from '../../domain/webhooks/circuit-breaker';
import { releaserSettings } from '../../orchestration/webhook-release';
import {
  circuitOf,
  failedDeliveries,
  parkedWebhooks,
  releaseParked,
  resetCircuit,
  tenantOfWebhook,
  troubledWebhooks,
  type ParkedWebhookRow,
  type TroubledWebhookRow,
} from '../../services/webhook-operations';
import { recoverDeliveries, redeliver } from '../../services/webhooks';
import { UsageError } from '../errors';
import { fields, pageText, table } from '../output';
import { instant, pageOf, withPage } from '../options';
import type { Perform } from '../perform';
import type { InTenant, Runtime } from '../runtime';

/** A webhook's receiver as the operator sees it: its origin, never the path or query (which may carry a receiver's token). */
function destination(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(not a URL)';
  }
}

const circuitJson = (breaker: BreakerState) => ({ state: breaker.state, since: breaker.since, consecutive_failures: breaker.consecutiveFailures });

function troubledJson(row: TroubledWebhookRow) {
  return {
    tenant_id: row.tenant_id,
    webhook_id: row.webhook_id,
    destination: destination(row.url),
    status: row.status,
    failing_since: row.failing_since,
    disabled_reason: row.disabled_reason,
    circuit: { state: row.breaker_state ?? 'closed', since: row.breaker_since, consecutive_failures: row.consecutive_failures ?? 0 },
    parked: row.parked,
  };
}

function parkedJson(row: ParkedWebhookRow, tenantLimit: number) {
  return {
    tenant_id: row.tenant_id,
    webhook_id: row.webhook_id,
    destination: row.url === null ? null : destination(row.url),
    status: row.status ?? 'deleted',
    circuit: row.breaker_state ?? 'closed',
    parked: row.parked,
    oldest_parked_at: row.oldest_parked_at,
    tenant: { parked: row.tenant_parked, limit: tenantLimit },
  };
}

/** The days back a listing or requeue of failed deliveries looks by default. */
const DEFAULT_SINCE_DAYS = 7;
const defaultSince = () => new Date(Date.now() - DEFAULT_SINCE_DAYS * 86_400_000);

/** The webhook's tenant, then `work` in that tenant's scope. */
async function inWebhooksTenant<T>(rt: Runtime, webhookId: string, work: (tenant: InTenant) => Promise<T>): Promise<T> {
  return rt.inTenant(await tenantOfWebhook(rt.db(), webhookId), work);
}

const webhookDeps = (rt: Runtime) => ({ db: rt.db(), config: rt.config(), temporal: rt.temporal() });

export function registerWebhooks(program: Command, perform: Perform): void {
  const webhooks = program
    .command('webhooks')
    .description('webhooks in trouble, their failed deliveries and sending them again, their circuit breaker, their parked deliveries and their release');

  withPage(
    webhooks
      .command('failing')
      .description('webhooks that are failing, disabled by a 410 Gone, or whose circuit is open or half open; oldest trouble first')
      .option('--tenant <tenant>', "only this tenant's (id or slug)"),
  ).action((options: { tenant?: string; limit: number; skip: number }, command: Command) =>
    perform(command, async (rt) => {
      const page = await rt.inTenantOrAll(options.tenant, (db, tenantId) => troubledWebhooks(db, tenantId, pageOf(options)));
      const items = page.items.map(troubledJson);
      const rows = table(items, [
        ['tenant', (w) => w.tenant_id],
        ['webhook', (w) => w.webhook_id],
        ['destination', (w) => w.destination],
        ['status', (w) => w.status],
        ['failing since', (w) => w.failing_since],
        ['circuit', (w) => `${w.circuit.state} (${w.circuit.consecutive_failures} failures)`],
        ['parked', (w) => w.parked],
      ]);
      return { json: { ...page, items }, text: pageText(page, rows) };
    }),
  );

  withPage(
    webhooks
      .command('parked')
      .description("webhooks with deliveries parked behind an open circuit: their count and oldest, the tenant's total against its bound; oldest first")
      .option('--tenant <tenant>', "only this tenant's (id or slug)"),
  ).action((options: { tenant?: string; limit: number; skip: number }, command: Command) =>
    perform(command, async (rt) => {
      const page = await rt.inTenantOrAll(options.tenant, (db, tenantId) => parkedWebhooks(db, tenantId, pageOf(options)));
      const items = page.items.map((row) => parkedJson(row, rt.config().outbound.webhookParkedPerTenant));
      const rows = table(items, [
        ['tenant', (w) => w.tenant_id],
        ['webhook', (w) => w.webhook_id],
        ['destination', (w) => w.destination],
        ['circuit', (w) => w.circuit],
        ['parked', (w) => w.parked],
        ['oldest', (w) => w.oldest_parked_at],
        ["tenant's", (w) => `${w.tenant.parked} of ${w.tenant.limit}`],
      ]);
      return { json: { ...page, items }, text: pageText(page, rows) };
    }),
  );

  webhooks
    .command('release')
    .description("for a receiver known to be back: close the webhook's circuit and send its parked deliveries in event order, the first ones now, the rest at the endpoint's pace")
    .argument('<webhook>', "the webhook's id")
    .action((webhookId: string, _options: unknown, command: Command) =>
      perform(command, async (rt) => {
        const deps = { db: rt.db(), temporal: rt.temporal(), settings: releaserSettings(rt.config().outbound) };
        const release = await inWebhooksTenant(rt, webhookId, ({ context }) => releaseParked(deps, context, webhookId));
        const json = {
          webhook_id: release.webhook.id,
          tenant_id: release.webhook.tenant_id,
          previous: circuitJson(release.previous),
          parked: release.parked,
          released: release.released,
        };
        const rest = release.parked - release.released;
        const text = `${release.webhook.id}: circuit ${release.previous.state} -> closed; ${release.released} of ${release.parked} parked deliveries released now${rest > 0 ? `, ${rest} follow at the endpoint's pace` : ''}`;
        return { json, text };
      }),
    );

  webhooks
    .command('deliveries')
    .description("a webhook's deliveries that failed for good and were not sent again: what `requeue` sends")
    .argument('<webhook>', "the webhook's id")
    .option('--since <time>', `from this time (ISO 8601; default ${DEFAULT_SINCE_DAYS} days ago; records are kept 30 days)`, instant)
    .action((webhookId: string, options: { since?: Date }, command: Command) =>
      perform(command, async (rt) => {
        const failed = await inWebhooksTenant(rt, webhookId, ({ scope }) => failedDeliveries(rt.db(), scope, webhookId, options.since ?? defaultSince()));
        const json = { webhook_id: failed.webhook.id, tenant_id: failed.webhook.tenant_id, since: failed.since, deliveries: failed.deliveries, truncated: failed.truncated };
        const rows = table(failed.deliveries, [
          ['delivery', (d) => d.delivery_id],
          ['event', (d) => d.event_id],
        ]);
        return { json, text: `failed for good since ${failed.since.toISOString()}${failed.truncated ? ' (first ones only)' : ''}:\n${rows}` };
      }),
    );

  webhooks
    .command('requeue')
    .description("send a webhook's failed deliveries again, as new deliveries of the same events (the tenant's recover and redeliver)")
    .argument('<webhook>', "the webhook's id")
    .option('--since <time>', `every delivery that failed for good since this time (ISO 8601; default ${DEFAULT_SINCE_DAYS} days ago)`, instant)
    .option('--delivery <id>', 'only this delivery')
    .action((webhookId: string, options: { since?: Date; delivery?: string }, command: Command) =>
      perform(command, async (rt) => {
        if (options.since && options.delivery) throw new UsageError('give --since or --delivery, not both');
        return inWebhooksTenant(rt, webhookId, async ({ context }) => {
          if (options.delivery) {
            const input = await redeliver(webhookDeps(rt), context, webhookId, options.delivery);
            const requeued = [{ delivery_id: input.deliveryId, redelivery_of: input.redeliveryOf ?? null }];
            return { json: { webhook_id: webhookId, tenant_id: context.tenantId, requeued, truncated: false }, text: `requeued ${options.delivery} as ${input.deliveryId}` };
          }
          const recovery = await recoverDeliveries(webhookDeps(rt), context, webhookId, options.since ?? defaultSince());
          const requeued = recovery.found.map((input) => ({ delivery_id: input.deliveryId, redelivery_of: input.redeliveryOf ?? null }));
          const json = { webhook_id: webhookId, tenant_id: context.tenantId, since: recovery.since, requeued, truncated: recovery.truncated };
          return { json, text: `requeued ${requeued.length} deliveries failed since ${recovery.since.toISOString()}${recovery.truncated ? ' (more remain: run again)' : ''}` };
        });
      }),
    );

  const breaker = webhooks.command('breaker').description("a webhook's circuit breaker: its state, and a reset that closes it");
  breaker
    .command('show')
    .description("the webhook's circuit: closed (sending), open (attempts wait), half_open (one probe out)")
    .argument('<webhook>', "the webhook's id")
    .action((webhookId: string, _options: unknown, command: Command) =>
      perform(command, async (rt) => {
        const { webhook, breaker: state } = await inWebhooksTenant(rt, webhookId, ({ scope }) => circuitOf(scope, webhookId));
        const json = { webhook_id: webhook.id, tenant_id: webhook.tenant_id, destination: destination(webhook.url), status: webhook.status, circuit: circuitJson(state) };
        const text = fields([
          ['webhook', webhook.id],
          ['tenant', webhook.tenant_id],
          ['destination', json.destination],
          ['status', webhook.status],
          ['circuit', state.state],
          ['since', state.since],
          ['failures in a row', state.consecutiveFailures],
        ]);
        return { json, text };
      }),
    );
  breaker
    .command('reset')
    .description('close the circuit now (its failures forgotten): for a receiver known to be back; waiting attempts go out when they next try')
    .argument('<webhook>', "the webhook's id")
    .action((webhookId: string, _options: unknown, command: Command) =>
      perform(command, async (rt) => {
        const reset = await inWebhooksTenant(rt, webhookId, ({ context }) => runUnit(rt.db(), context, (unit) => resetCircuit(unit, webhookId)));
        const json = { webhook_id: reset.webhook.id, tenant_id: reset.webhook.tenant_id, previous: circuitJson(reset.previous), circuit: circuitJson(reset.breaker) };
        return { json, text: `${reset.webhook.id}: circuit ${reset.previous.state} (${reset.previous.consecutiveFailures} failures) -> closed` };
      }),
    );
}
