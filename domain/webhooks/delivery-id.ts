/**
 * The id of the delivery of one event to one webhook, derived from both (RFC 9562 UUID version 5,
 * SHA-1 in a namespace of ours). The dispatcher starts `webhook-delivery/<tenant>/<delivery id>`,
 * so dispatching the same event again after a crash starts the same workflow id, which Temporal
 * refuses: a delivery is delayed by a crash, never doubled. Uses node:crypto: not for workflows.
 */
import { createHash } from 'node:crypto';

/** Fixed namespace of webhook delivery ids (a random v4 UUID chosen once; never change it). */
export const DELIVERY_ID_NAMESPACE = '3d4f8a5e-2b7c-4e91-9a36-5c1f0e7d2b84';

export function deliveryIdFor(eventId: string, webhookId: string): string {
  return uuidV5(`${eventId}/${webhookId}`, DELIVERY_ID_NAMESPACE);
}

export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (ns.length !== 16) throw new TypeError('namespace must be a UUID');
  const bytes = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
