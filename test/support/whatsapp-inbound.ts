/** Inbound WhatsApp messages as Meta's Cloud API posts them to the webhook, signed with an app secret. */
import { createHmac } from 'node:crypto';
import type { TestApi, TestResponse } from './api';

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
