/**
 * When the e-mail agent must not answer: mail that another machine sent (auto-replies, bounces,
 * bulk and list mail: answering them starts mail loops or backscatter) and mail whose sender the
 * receiving MTA could not authenticate (answering a forged From mails a stranger). Read from the
 * headers only. Separately, a contact gets at most AUTO_REPLIES_PER_CONTACT_PER_HOUR automatic
 * replies (db/queries/auto-replies.ts), the stop for a loop no header gives away.
 */

/** Why an inbound message got no automatic reply (stored on the message). */
export type NoReplyReason =
  'spf_fail' | 'dkim_fail' | 'dmarc_fail' | 'system_sender' | 'auto_submitted' | 'auto_reply_suppressed' | 'bulk_precedence' | 'mailing_list' | 'contact_reply_limit';

/** Automatic replies per contact in any sliding hour; a person rarely writes more, a loop always does. */
export const AUTO_REPLIES_PER_CONTACT_PER_HOUR = 10;

export interface MailHeader {
  /** Any case. */
  name: string;
  /** Unfolded. */
  value: string;
}

/** mailparser's `headerLines` (`{key, line}` with the raw "Name: value" line) as unfolded headers. */
export function headersOfLines(lines: readonly { key: string; line: string }[]): MailHeader[] {
  return lines.map(({ key, line }) => ({
    name: key,
    value: line
      .slice(line.indexOf(':') + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim(),
  }));
}

// Senders that are machines by convention (RFC 5321 postmaster, bounce daemons, no-reply boxes).
const SYSTEM_LOCAL_PARTS = /^(mailer-daemon|postmaster|no-?reply|do-?not-?reply)$/i;

/**
 * The results of Authentication-Results headers (RFC 8601) per method: `spf=fail`,
 * `dkim=pass`, ... Every such header counts: a forged failure can only keep a reply from going out.
 */
function authenticationResults(headers: readonly MailHeader[]): Map<string, Set<string>> {
  const results = new Map<string, Set<string>>();
  for (const header of headers.filter((h) => h.name.toLowerCase() === 'authentication-results')) {
    // The first part is the authserv-id of the MTA that wrote it.
    for (const part of header.value.split(';').slice(1)) {
      const match = /^\s*(spf|dkim|dmarc)\s*=\s*([a-z]+)/i.exec(part);
      if (!match) continue;
      const method = match[1]!.toLowerCase();
      results.set(method, (results.get(method) ?? new Set()).add(match[2]!.toLowerCase()));
    }
  }
  return results;
}

/** Why the agent must not answer this mail, or null when it may. `from` is the From address. */
export function noReplyReason(headers: readonly MailHeader[], from: string): NoReplyReason | null {
  const values = (name: string) => headers.filter((h) => h.name.toLowerCase() === name).map((h) => h.value.trim());
  const has = (name: string) => values(name).length > 0;

  const auth = authenticationResults(headers);
  if (auth.get('spf')?.has('fail')) return 'spf_fail';
  // One valid signature is enough when a message carries several.
  if (auth.get('dkim')?.has('fail') && !auth.get('dkim')?.has('pass')) return 'dkim_fail';
  if (auth.get('dmarc')?.has('fail')) return 'dmarc_fail';

  const localPart = from.slice(0, from.lastIndexOf('@'));
  // A null reverse path (`Return-Path: <>`) is a bounce or another delivery report.
  if (SYSTEM_LOCAL_PARTS.test(localPart) || values('return-path').some((v) => v === '<>')) return 'system_sender';
  // RFC 3834: anything other than "no" is automatic (auto-replied, auto-generated, auto-notified).
  if (values('auto-submitted').some((v) => v.split(';')[0]!.trim().toLowerCase() !== 'no')) return 'auto_submitted';
  if (has('x-autoreply') || has('x-autorespond')) return 'auto_submitted';
  // Exchange's request not to be auto-answered.
  if (values('x-auto-response-suppress').some((v) => /\b(all|autoreply|oof)\b/i.test(v))) return 'auto_reply_suppressed';
  if (values('precedence').some((v) => /^(bulk|list|junk)$/i.test(v))) return 'bulk_precedence';
  if (has('list-id') || has('list-unsubscribe')) return 'mailing_list';
  return null;
}
