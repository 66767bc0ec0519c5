/**
 * Which extracted values could identify the record's data subject: e-mail addresses and phone
 * numbers among the string values, in template order (e-mails first: they are the more specific).
 * Pure; the lookup against the tenant's contacts is in db/queries/extractions.ts.
 */
import { findEmails } from '../privacy/detectors/email';
import { findPhones } from '../privacy/detectors/phone';
import type { ExtractedFields } from './types';

export interface SubjectKeys {
  emails: string[];
  /** Digits only (contacts are matched on their digits, whatever the formatting). */
  phoneDigits: string[];
}

const whole = (value: string, ranges: Array<{ start: number; end: number }>) => ranges.some((r) => r.start === 0 && r.end === value.length);

export function subjectKeys(fields: ExtractedFields): SubjectKeys {
  const emails: string[] = [];
  const phoneDigits: string[] = [];
  for (const result of Object.values(fields)) {
    if (typeof result.value !== 'string') continue;
    const value = result.value.trim();
    if (whole(value, findEmails(value))) emails.push(value.toLowerCase());
    else if (whole(value, findPhones(value))) phoneDigits.push(value.replace(/\D/g, ''));
  }
  return { emails, phoneDigits };
}
