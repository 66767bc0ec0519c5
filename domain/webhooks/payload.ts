/**
 * The canonical payload of a delivery (DESIGN.md) and its serialisation, which is the raw body
 * that gets signed and sent. Pure and free of Node modules.
 *
 * The serialisation is deterministic: the envelope fields in a fixed order, then `data` with
 * object keys sorted at every depth (UTF-16 code unit order, as RFC 8785). The same event thus
 * always yields the same bytes, even after its data went through PostgreSQL jsonb, which does
 * not keep key order: a retry or a redelivery sends exactly what the first attempt sent.
 */
import { isValidEventType } from './matching';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export const API_VERSION = 'v1';

export interface CanonicalPayload {
  readonly id: string;
  readonly type: string;
  readonly tenant_id: string;
  /** ISO 8601 UTC with milliseconds, e.g. 2025-03-01T12:00:00.000Z. */
  readonly occurred_at: string;
  readonly api_version: typeof API_VERSION;
  readonly data: JsonObject;
}

export interface PayloadInput {
  eventId: string;
  type: string;
  tenantId: string;
  occurredAt: Date;
  data: JsonObject;
}

export function buildPayload(input: PayloadInput): CanonicalPayload {
  if (!isValidEventType(input.type)) throw new TypeError(`invalid event type: ${JSON.stringify(input.type)}`);
  if (input.eventId === '' || input.tenantId === '') throw new TypeError('eventId and tenantId must not be empty');
  if (Number.isNaN(input.occurredAt.getTime())) throw new TypeError('occurredAt is an invalid date');
  return {
    id: input.eventId,
    type: input.type,
    tenant_id: input.tenantId,
    occurred_at: input.occurredAt.toISOString(),
    api_version: API_VERSION,
    data: input.data,
  };
}

/** The body of a delivery: compact JSON, envelope in documented order, `data` keys sorted. */
export function serializePayload(payload: CanonicalPayload): string {
  const envelope: ReadonlyArray<[string, string]> = [
    ['id', payload.id],
    ['type', payload.type],
    ['tenant_id', payload.tenant_id],
    ['occurred_at', payload.occurred_at],
    ['api_version', payload.api_version],
  ];
  const fields = envelope.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`);
  return `{${fields.join(',')},"data":${canonicalJson(payload.data)}}`;
}

/**
 * Compact JSON with object keys sorted at every depth. Throws on anything JSON cannot carry
 * faithfully (undefined in arrays, NaN, Infinity, bigint, functions, Dates, Maps...), where
 * JSON.stringify would silently change the value. Object properties that are undefined are
 * omitted, as JSON.stringify and jsonb do.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`not representable in JSON: ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined ? fail('undefined in an array') : canonicalJson(item))).join(',')}]`;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === null) {
    return canonicalJson({ ...(value as object) });
  }
  return fail(`not representable in JSON: ${Object.prototype.toString.call(value)}`);
}

function fail(message: string): never {
  throw new TypeError(message);
}
