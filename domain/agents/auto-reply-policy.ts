/**
 * When the e-mail agent must not answer: mail that another machine sent (auto-replies, bounces,
 * bulk and list mail: answering them starts mail loops or backscatter) and mail whose sender the
 * receiving MTA did not authenticate (answering a forged From mails a stranger). Read from the
 * headers only. The agent answers only a sender authenticated *for its From domain* (DMARC,
 * RFC 7489, relaxed alignment): a DMARC pass, or an SPF pass whose MAIL FROM domain, or a DKIM
 * pass whose signing domain, has the From domain's organisational domain (the Public Suffix List,
 * through tldts). A missing, neutral or softfail result, or a pass for another domain, is no
 * authentication. Passes count only from the topmost Authentication-Results header, the one the
 * receiving MTA prepended (RFC 8601 section 5: a header further down may be the sender's own);
 * failures count from any (a forged failure can only keep a reply from going out). Separately, a
 * contact gets at most AUTO_REPLIES_PER_CONTACT_PER_HOUR automatic replies
 * (db/queries/auto-replies.ts), the stop for a loop no header gives away.
 */
import { getDomain } from 'tldts';

/** Why an inbound message got no automatic reply (stored on the message). */
export type NoReplyReason =
  | 'spf_fail'
  | 'dkim_fail'
  | 'dmarc_fail'
  | 'sender_unauthenticated'
  | 'system_sender'
  | 'auto_submitted'
  | 'auto_reply_suppressed'
  | 'bulk_precedence'
  | 'mailing_list'
  | 'contact_reply_limit';

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

/** One result of an Authentication-Results header: `dkim=pass header.d=example.com` is `{method: 'dkim', result: 'pass', props: {'header.d': 'example.com'}}`. */
export interface AuthResult {
  method: string;
  result: string;
  props: Record<string, string>;
}

/** RFC 8601 comments (`(sender IP is 203.0.113.9)`), dropped before the results are read; one level, as MTAs write them. */
function withoutComments(value: string): string {
  let out = '';
  let depth = 0;
  for (const ch of value) {
    if (ch === '(') depth += 1;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out;
}

/** The results of one Authentication-Results header value, after its authserv-id; methods, results and property names lowercased. */
export function parseAuthenticationResults(value: string): AuthResult[] {
  const results: AuthResult[] = [];
  // The first part is the authserv-id of the MTA that wrote it.
  for (const part of withoutComments(value).split(';').slice(1)) {
    // RFC 8601 allows white space around `=`: joined first (plain string steps, linear on any input).
    const [head, ...rest] = part.trim().split(/\s+/).join(' ').replaceAll(' =', '=').replaceAll('= ', '=').split(' ');
    const eq = head?.indexOf('=') ?? -1;
    if (!head || eq <= 0) continue;
    const method = head.slice(0, eq).toLowerCase();
    const props: Record<string, string> = {};
    for (const token of rest) {
      const at = token.indexOf('=');
      if (at > 0) props[token.slice(0, at).toLowerCase()] = token.slice(at + 1).replace(/^"|"$/g, '');
    }
    results.push({ method, result: head.slice(eq + 1).toLowerCase(), props });
  }
  return results;
}

/** The domain of an address or a bare domain (`user@Mail.Example.COM` and `mail.example.com` alike), lowercased. */
const domainOf = (value: string): string => value.slice(value.lastIndexOf('@') + 1).toLowerCase();

/** Relaxed alignment (RFC 7489 3.1): the same organisational domain (eTLD+1), or the same host where there is none. */
export function domainsAlign(a: string, b: string): boolean {
  const [x, y] = [domainOf(a), domainOf(b)];
  if (!x || !y) return false;
  return (getDomain(x) ?? x) === (getDomain(y) ?? y);
}

/** Whether a result authenticates the From domain: DMARC pass (for it), or an SPF or DKIM pass of a domain aligned with it. */
function authenticatesFrom(r: AuthResult, fromDomain: string): boolean {
  if (r.result !== 'pass') return false;
  if (r.method === 'dmarc') return !r.props['header.from'] || domainsAlign(r.props['header.from'], fromDomain);
  if (r.method === 'spf') return !!r.props['smtp.mailfrom'] && domainsAlign(r.props['smtp.mailfrom'], fromDomain);
  if (r.method === 'dkim') {
    const signer = r.props['header.d'] ?? r.props['header.i'];
    return !!signer && domainsAlign(signer, fromDomain);
  }
  return false;
}

/** Why the agent must not answer this mail, or null when it may. `from` is the From address. */
export function noReplyReason(headers: readonly MailHeader[], from: string): NoReplyReason | null {
  const values = (name: string) => headers.filter((h) => h.name.toLowerCase() === name).map((h) => h.value.trim());
  const has = (name: string) => values(name).length > 0;

  const reports = values('authentication-results').map(parseAuthenticationResults);
  const all = reports.flat();
  const results = (method: string) => new Set(all.filter((r) => r.method === method).map((r) => r.result));
  if (results('spf').has('fail')) return 'spf_fail';
  // One valid signature is enough when a message carries several.
  if (results('dkim').has('fail') && !results('dkim').has('pass')) return 'dkim_fail';
  if (results('dmarc').has('fail')) return 'dmarc_fail';

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
  // Only the receiving MTA's own (topmost) report can vouch for the sender.
  if (!(reports[0] ?? []).some((r) => authenticatesFrom(r, domainOf(from)))) return 'sender_unauthenticated';
  return null;
}
