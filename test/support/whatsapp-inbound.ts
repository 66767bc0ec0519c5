/** Inbound WhatsApp messages as Meta's Cloud API posts them to the webhook, signed with an app secret. */
import { createHmac, randomUUID } from 'node:crypto';
import type { TestApi, TestResponse, TestTenant } from './api';

export interface InboundWhatsapp {
  id: string;
  from: string;
  text: string;
  ts?: number;
  name?: string;
}

/** The webhook body of `messages` received on the number `phoneNumberId`. */
export function whatsappPayload(phoneNumberId: string, messages: readonly InboundWhatsapp[]) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '34600111222', phone_number_id: phoneNumberId },
              contacts: messages.map((m) => ({ profile: { name: m.name ?? 'Ana Lopez' }, wa_id: m.from })),
              messages: messages.map((m) => ({ from: m.from, id: m.id, timestamp: String(m.ts ?? 1_763_000_000), type: 'text', text: { body: m.text } })),
            },
          },
        ],
      },
    ],
  };
}

/** POSTs `body` to the webhook, signed with `appSecret` (`null`: unsigned). */
export function postWhatsapp(api: TestApi, body: unknown, appSecret: string | null): Promise<TestResponse> {
  const raw = JSON.stringify(body);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (appSecret) headers['X-Hub-Signature-256'] = `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
  return api.request('/api/v1/whatsapp/webhook', { method: 'POST', headers, body: raw });
}

/** A WhatsApp number registered for `tenant` with `appSecret` (a random phone_number_id): its record's id and its phone_number_id. */
export async function registerWhatsappNumber(api: TestApi, tenant: TestTenant, appSecret: string): Promise<{ id: string; phoneNumberId: string }> {
  const phoneNumberId = String(100000000000 + Math.floor(Math.random() * 9e11));
  const number = await api.request('/api/v1/whatsapp/numbers', {
    method: 'POST',
    token: tenant.token,
    json: {
      display_phone_number: '+34600111999',
      phone_number_id: phoneNumberId,
      access_token: `tok-${randomUUID()}`,
      app_secret: appSecret,
      verify_token: `verify-${randomUUID()}`,
    },
  });
  if (number.status !== 201) throw new Error(`WhatsApp number not registered: ${number.status} ${number.text}`);
  return { id: number.body.id, phoneNumberId };
}
