/**
 * The identity a subject access or erasure request names: a contact's id, an e-mail address or a
 * phone number. Contacts store e-mails as given (compared case-insensitively, as their unique
 * index does) and phones in E.164 (`+` and digits, from the channels), so a phone is normalised to
 * E.164 before it is compared.
 */
import { normalizeEmail } from '../email';

export type SubjectIdentity = { kind: 'id'; id: string } | { kind: 'email'; email: string } | { kind: 'phone'; e164: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Separators people write inside a number: spaces, dashes, dots, slashes, parentheses. */
const SEPARATORS = /[\s\-./()]/g;

/**
 * `+34 600-111-222` and `0034600111222` are `+34600111222`. Only international numbers: without a
 * country code a national number names no one for sure. E.164: a country code that never starts
 * with 0, at most 15 digits; below 8 digits it is no subscriber number.
 */
export function toE164(value: string): string | null {
  const match = /^(?:\+|00)([1-9]\d{7,14})$/.exec(value.trim().replace(SEPARATORS, ''));
  return match ? `+${match[1]}` : null;
}

/** What `subject_id` names; null when it is neither a UUID, an e-mail address nor an international phone number. */
export function parseSubjectIdentity(value: string): SubjectIdentity | null {
  const text = value.trim();
  if (UUID.test(text)) return { kind: 'id', id: text.toLowerCase() };
  if (text.includes('@')) {
    const email = normalizeEmail(text);
    return email ? { kind: 'email', email } : null;
  }
  const e164 = toE164(text);
  return e164 ? { kind: 'phone', e164 } : null;
}
