/**
 * The identity a subject access or erasure request names: a contact's id, an e-mail address or a
 * phone number. Contacts store e-mails as given (compared case-insensitively, as their unique
 * index does) and phones in E.164 (`+` and digits, from the channels), so a phone is normalised to
 * E.164 before it is compared. A number in national form (`0612 345 678`) is read with the
 * tenant's default country by the PII detectors' phone reader (validators/phone.ts, libphonenumber's
 * plans: trunk prefixes and numbering plans differ by country, the Dutch 0 goes, the Italian one
 * stays) and must be a valid number of that country.
 */
import { normalizeEmail } from '../email';
import { isPhoneCountry, readPhone } from './validators/phone';

export { isPhoneCountry };

export type SubjectIdentity = { kind: 'id'; id: string } | { kind: 'email'; email: string } | { kind: 'phone'; e164: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Separators people write inside a number: spaces, dashes, dots, slashes, parentheses. */
const SEPARATORS = /[\s\-./()]/g;
/** A phone as people write it: an optional `+`, then digits and separators only. */
const PHONE_TEXT = /^\+?[\d\s\-./()]+$/;

/**
 * `+34 600-111-222` and `0034600111222` are `+34600111222`: a country code that never starts with
 * 0, at most 15 digits; below 8 digits it is no subscriber number. Without a country code, only
 * with `defaultCountry`: `0612 345 678` in NL is `+31612345678`, when it is a valid Dutch number.
 */
export function toE164(value: string, defaultCountry: string | null = null): string | null {
  const text = value.trim();
  if (!PHONE_TEXT.test(text)) return null;
  const international = /^(?:\+|00)([1-9]\d{7,14})$/.exec(text.replace(SEPARATORS, ''));
  if (international) return `+${international[1]}`;
  if (!defaultCountry || !isPhoneCountry(defaultCountry) || text.startsWith('+')) return null;
  const reading = readPhone(text, { defaultCountry });
  return reading?.valid ? reading.e164 : null;
}

/** Whether the value is written like a phone number without a country code (a national number). */
export function isNationalPhoneText(value: string): boolean {
  const text = value.trim();
  return PHONE_TEXT.test(text) && !text.startsWith('+') && toE164(text) === null && /\d/.test(text);
}

/**
 * What `subject_id` names; null when it is neither a UUID, an e-mail address nor a phone number
 * (international, or national when the tenant has a default country).
 */
export function parseSubjectIdentity(value: string, defaultCountry: string | null = null): SubjectIdentity | null {
  const text = value.trim();
  if (UUID.test(text)) return { kind: 'id', id: text.toLowerCase() };
  if (text.includes('@')) {
    const email = normalizeEmail(text);
    return email ? { kind: 'email', email } : null;
  }
  const e164 = toE164(text, defaultCountry);
  return e164 ? { kind: 'phone', e164 } : null;
}
