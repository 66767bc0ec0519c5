import { ownValue } from '../../domain/own';
import Joi from '../../domain/joi';
import type { Schema } from 'joi';
import { isReservedEventType, MACHINE_EVENT_TYPE_PATTERN } from '../../domain/assets/machine-events';
import { AppContext, tenantScopeOf, userOf } from '../context';
import { actorOf, MutationUnit, runMutation } from '../mutation';
import { pageQuery, pageOf } from '../pagination';
import { mapPage, PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { parameterName } from './asset-alerts';
import { notInFuture } from './asset-state';
import { isoTime } from '../../domain/time';
import { EventItem, ingestMachineEventBatch, ingestMachineReadings, listMachineEvents, MachineEventFilter, MachineEventRow, ReadingItem } from '../../services/machine';

/**
 * The industrial event gateway: machines (API clients holding a token with manage_assets) send
 * sensor readings and machine events, one at a time or in batches of up to 500. Every item carries
 * the sender's `event_id`: an id already stored for the tenant is skipped, so a retried request
 * stores nothing twice. Times are the device's (`timestamp`); late and out-of-order items are
 * accepted (README: domain/assets/README.md).
 */

export const MAX_BATCH = 500;

const eventId = Joi.string().trim().min(1).max(200).description("The sender's unique id of this item (idempotency key per tenant)");
const assetId = Joi.string().max(64);

const readingItem = Joi.object({
  event_id: eventId.required(),
  asset_id: assetId.required(),
  parameter: parameterName.required(),
  value: Joi.number().required(),
  unit: Joi.string().trim().max(50).allow(null),
  timestamp: notInFuture('timestamp').required().description('Device time, ISO 8601; at most 5 minutes ahead of the server'),
  source: Joi.string().trim().max(200).allow(null).description('Sensor or gateway that produced the reading'),
});

const machineEventItem = Joi.object({
  event_id: eventId.required(),
  asset_id: assetId.required(),
  type: Joi.string()
    .max(100)
    .pattern(MACHINE_EVENT_TYPE_PATTERN)
    .custom((value: string, helpers) => (isReservedEventType(value) ? helpers.message({ custom: `"${value.split('.')[0]}." events are the service's own` }) : value))
    .required()
    .description("Dotted `<domain>.<event>`, e.g. `vibration.threshold_exceeded`; the service's own domains (asset., maintenance., ...) are refused"),
  timestamp: notInFuture('timestamp').required(),
  severity: Joi.string().valid('info', 'warning', 'critical').allow(null),
  data: Joi.object()
    .unknown(true)
    .custom((value, helpers) => (JSON.stringify(value).length > 16_384 ? helpers.message({ custom: 'must be at most 16 KB of JSON' }) : value)),
  source: Joi.string().trim().max(200).allow(null),
});

const readingsSummary = Joi.object({
  received: Joi.number(),
  stored: Joi.number(),
  duplicates: Joi.number().description('Items whose event_id was already stored'),
  late: Joi.number().description('Stored readings older than the newest reading of their series (a flushed buffer): judged at their own time'),
  alerts_raised: Joi.number(),
  alerts_resolved: Joi.number(),
});
const eventsSummary = Joi.object({ received: Joi.number(), stored: Joi.number(), duplicates: Joi.number() });

export function machineRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/machine');

  /**
   * The two ingest routes of one kind of item: `path` takes a single item, `path/batch` up to
   * MAX_BATCH under the key named like the path; either way the items go to the service's
   * `ingest` in one unit of work.
   */
  const ingestRoutes = <Item>(spec: {
    path: '/readings' | '/events';
    noun: string;
    description: string;
    item: Schema;
    result: Schema;
    ingest: (unit: MutationUnit, items: Item[]) => Promise<object>;
    /** After the unit committed (no transaction open): what Temporal must hear of the items (marked, not awaited). */
    afterCommit?: (ctx: AppContext, items: Item[]) => void;
  }) => {
    const key = spec.path.slice(1);
    const route = (path: string, summary: string, body: Schema, itemsOf: (body: any) => Item[]) =>
      api.route<unknown, unknown, unknown>({
        method: 'post',
        path,
        summary,
        description: spec.description,
        tags: ['machine'],
        auth: 'user',
        permission: 'manage_assets',
        body,
        responses: { 200: { description: 'What was stored', schema: spec.result }, 404: { description: 'An asset_id names no asset of the tenant' } },
        handler: async (ctx, input) => {
          const items = itemsOf(input.body);
          ctx.body = await runMutation(ctx, userOf(ctx).tenantId, actorOf(ctx), (unit) => spec.ingest(unit, items));
          spec.afterCommit?.(ctx, items);
        },
      });
    route(spec.path, `Ingest one ${spec.noun}`, spec.item, (body: Item) => [body]);
    route(
      `${spec.path}/batch`,
      `Ingest up to ${MAX_BATCH} ${spec.noun}s`,
      Joi.object({ [key]: Joi.array().items(spec.item).min(1).max(MAX_BATCH).required() }),
      // The key is the route's own (from its path), required by the schema above.
      (body: Record<string, Item[]>) => ownValue(body, key) ?? [],
    );
  };

  ingestRoutes<ReadingItem>({
    path: '/readings',
    noun: 'sensor reading',
    description:
      "Stores the readings (idempotent by event_id), judges each series' new readings against its active baseline (alerts raised, " +
      'deduplicated and resolved; outbox events asset.alert.raised / asset.alert.resolved), and recomputes the health and condition of ' +
      'the assets, all in one transaction. A reading older than the newest one of its series (a gateway flushing its buffer) is judged at its own time: ' +
      'within a recorded alert it may raise its peak (a resolved alert is never reopened); otherwise it raises an alert whose raised_at is its time, ' +
      'resolved by the first later stored reading back inside the band. ' +
      'After the commit, each maintenance plan with a condition or predictive trigger on a series of the batch is told to evaluate its new readings ' +
      '(within a fraction of a second, one signal per plan for any number of batches meanwhile).',
    item: readingItem,
    result: readingsSummary,
    ingest: ingestMachineReadings,
    // Condition and predictive maintenance plans on these series evaluate the new readings: the series are marked, and
    // the plans watching them looked up and signalled once per flush.
    afterCommit: (ctx, items) => void ctx.deps.planReadings.mark(userOf(ctx).tenantId, items),
  });

  ingestRoutes<EventItem>({
    path: '/events',
    noun: 'machine event',
    description:
      'Stores raw machine events (idempotent by event_id; kept in their own table, subject to retention). Each newly stored event is also ' +
      'published to the outbox under its own type, so machine agents (trigger_config.event_types) and webhooks react to it.',
    item: machineEventItem,
    result: eventsSummary,
    ingest: ingestMachineEventBatch,
  });

  api.route<unknown, PageRequest & MachineEventFilter>({
    method: 'get',
    path: '/events',
    summary: 'Machine events',
    description: 'Newest first by device time; `from` inclusive, `to` exclusive.',
    tags: ['machine'],
    auth: 'user',
    permission: 'view_assets',
    query: Joi.object({ ...pageQuery, asset_id: assetId, type: Joi.string().max(100), from: Joi.date().iso(), to: Joi.date().iso() }),
    responses: {
      200: {
        description: 'A page of machine events',
        schema: pageOf(Joi.object().unknown(true)),
      },
    },
    handler: async (ctx, { query }) => {
      ctx.body = mapPage(await listMachineEvents(tenantScopeOf(ctx), query, query), (e: MachineEventRow) => ({
        id: e.id,
        event_id: e.sender_event_id,
        asset_id: e.asset_id,
        type: e.event_type,
        severity: e.severity,
        timestamp: isoTime(e.ts),
        data: e.data,
        source: e.source,
        received_at: isoTime(e.received_at),
      }));
    },
  });

  return api;
}
