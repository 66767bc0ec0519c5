/**
 * Webhook rows and their secrets. The API and the delivery activities share these, so the
 * encryption context and the rotation window are decided in one place.
 */
import { decryptSecret, encryptSecret } from '../../infra/crypto';
import type { WebhookFilters } from '../../domain/webhooks/matching';
import type { DeliveryPolicy } from '../../domain/webhooks/outcome';
import { Queryable } from '../knex';
import { TenantScope } from '../tenant-scope';

export const WEBHOOK_STATUSES = ['active', 'paused', 'failing', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
/** Statuses whose webhooks receive deliveries; `failing` keeps receiving (SPEC.md: not deactivated). */
export const RECEIVING_STATUSES: readonly WebhookStatus[] = ['active', 'failing'];

/** How long the secret replaced by a rotation keeps signing (and verifying at the receiver). */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

export interface WebhookRow {
  id: string;
  tenant_id: string;
  url: string;
  events: string[];
  filters: WebhookFilters;
  description: string | null;
  status: WebhookStatus;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  low_success_alerted_at: Date | null;
  disabled_reason: string | null;
  /** Opt-ins beyond SPEC.md's failure rules (domain/webhooks/outcome.ts DeliveryPolicy). */
  disable_on_gone: boolean;
  honour_retry_after: boolean;
  /** Receives the webhook's alerts; null when its user was deleted (the admins receive them then). */
  owner_user_id: string | null;
  /** When a check first saw the success rate below 50 % (cleared when it recovers). */
  low_success_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function deliveryPolicyOf(webhook: Pick<WebhookRow, 'disable_on_gone' | 'honour_retry_after'>): DeliveryPolicy {
  return { disableOnGone: webhook.disable_on_gone === true, honourRetryAfter: webhook.honour_retry_after === true };
}

export function findWebhook(scope: TenantScope, id: string): Promise<WebhookRow | undefined> {
  return scope.table('webhooks').where('webhooks.id', id).first();
}

/** The encryption context binds a secret to its webhook: a ciphertext copied to another row is useless. */
const secretContext = (webhookId: string) => `webhook:${webhookId}`;

export function encryptWebhookSecret(webhookId: string, secret: string, key: Buffer): string {
  return encryptSecret(secret, key, secretContext(webhookId));
}

/** The secrets that sign now: the current one first, then the previous one while its 24 h last. */
export function signingSecrets(row: WebhookRow, key: Buffer, now: Date): string[] {
  const secrets = [decryptSecret(row.secret_encrypted, key, secretContext(row.id))];
  if (row.previous_secret_encrypted && row.previous_secret_expires_at && row.previous_secret_expires_at > now) {
    secrets.push(decryptSecret(row.previous_secret_encrypted, key, secretContext(row.id)));
  }
  return secrets;
}

/** E-mail addresses of a tenant's active admins: the people told about failing webhooks. */
/**
 * Who hears about a webhook: its owner while they are an active user of the tenant, otherwise the
 * tenant's active admins (the owner was deleted or disabled: the alert must still reach someone).
 */
export async function webhookOwnerEmails(db: Queryable, webhook: Pick<WebhookRow, 'tenant_id' | 'owner_user_id'>): Promise<string[]> {
  if (webhook.owner_user_id) {
    const owner = await db('users').where({ tenant_id: webhook.tenant_id, id: webhook.owner_user_id, status: 'active' }).first('email');
    if (owner) return [owner.email as string];
  }
  return tenantAdminEmails(db, webhook.tenant_id);
}

export async function tenantAdminEmails(db: Queryable, tenantId: string): Promise<string[]> {
  const rows = await db('users').where({ tenant_id: tenantId, role: 'admin', status: 'active' }).orderBy('created_at').select('email');
  return rows.map((row) => row.email as string);
}
