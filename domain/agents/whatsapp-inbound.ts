/**
 * Reading a WhatsApp Cloud API webhook payload (`object: "whatsapp_business_account"`): the
 * inbound messages it carries, per receiving number. Status updates (`value.statuses`) and other
 * fields carry no message and are skipped. Pure: no I/O.
 */
export interface InboundWhatsappMessage {
  /** The provider id of the receiving number (`metadata.phone_number_id`). */
  phoneNumberId: string;
  /** The provider's message id (`wamid...`), the redelivery key. */
  providerMessageId: string;
  /** The sender in E.164 (`+` and the `from` wa_id). */
  fromPhone: string;
  /** The sender's profile name, when the payload gives one. */
  profileName: string | null;
  /** Text of a text message; `[<type> message]` for media, locations and the like. */
  body: string;
  sentAt: Date;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

export function isWhatsappPayload(payload: unknown): payload is Json {
  return isObject(payload) && payload.object === 'whatsapp_business_account' && Array.isArray(payload.entry);
}

/** The receiving numbers a payload names (each must be verified before anything is stored). */
export function receivingNumbers(payload: Json): string[] {
  const ids = new Set<string>();
  for (const value of changeValues(payload)) {
    const id = isObject(value.metadata) ? str(value.metadata.phone_number_id) : null;
    if (id) ids.add(id);
  }
  return [...ids];
}

export function inboundMessages(payload: Json): InboundWhatsappMessage[] {
  const out: InboundWhatsappMessage[] = [];
  for (const value of changeValues(payload)) {
    const phoneNumberId = isObject(value.metadata) ? str(value.metadata.phone_number_id) : null;
    if (!phoneNumberId) continue;
    const names = new Map<string, string>();
    for (const c of list(value.contacts)) {
      if (isObject(c) && str(c.wa_id) && isObject(c.profile) && str(c.profile.name)) names.set(c.wa_id as string, c.profile.name as string);
    }
    for (const m of list(value.messages)) {
      if (!isObject(m)) continue;
      const id = str(m.id);
      const from = str(m.from);
      const seconds = Number(m.timestamp);
      if (!id || !from || !/^\d{6,15}$/.test(from) || !Number.isFinite(seconds)) continue;
      const text = m.type === 'text' && isObject(m.text) ? str(m.text.body) : null;
      out.push({
        phoneNumberId,
        providerMessageId: id,
        fromPhone: `+${from}`,
        profileName: names.get(from) ?? null,
        body: text ?? `[${str(m.type) ?? 'unknown'} message]`,
        sentAt: new Date(seconds * 1000),
      });
    }
  }
  return out;
}

function changeValues(payload: Json): Json[] {
  const values: Json[] = [];
  for (const entry of list(payload.entry)) {
    if (!isObject(entry)) continue;
    for (const change of list(entry.changes)) {
      if (isObject(change) && change.field === 'messages' && isObject(change.value)) values.push(change.value);
    }
  }
  return values;
}
