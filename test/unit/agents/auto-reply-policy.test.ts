/**
 * Which inbound mail the e-mail agent leaves unanswered: automatic and bulk mail, machine
 * senders, and failed SPF / DKIM / DMARC results of the receiving MTA; ordinary mail is answered.
 */
import { headersOfLines, MailHeader, noReplyReason } from '../../../domain/agents/auto-reply-policy';

const h = (name: string, value: string): MailHeader => ({ name, value });
const PERSON = 'ana@customer.example';

describe('noReplyReason', () => {
  const AR = (value: string) => h('Authentication-Results', `mx.plant.example; ${value}`);

  it('answers mail whose sender the receiving MTA authenticated for the From domain (DMARC, or an aligned SPF or DKIM pass)', () => {
    for (const results of [
      'spf=pass smtp.mailfrom=customer.example; dkim=pass header.d=customer.example; dmarc=pass header.from=customer.example',
      'dmarc=pass (p=reject) header.from=customer.example',
      // Relaxed alignment: the same organisational domain.
      'spf=pass smtp.mailfrom=bounces@mail.customer.example',
      'dkim=pass header.d=eu.customer.example header.s=s1',
      'dkim=pass header.i=@customer.example',
      // White space around `=` and in any case, as RFC 8601 allows.
      'SPF = Pass smtp.mailfrom = customer.example',
    ]) {
      expect(noReplyReason([AR(results)], PERSON)).toBeNull();
    }
    expect(noReplyReason([h('Auto-Submitted', 'no'), AR('dmarc=pass'), h('Precedence', 'first-class')], PERSON)).toBeNull();
    // The organisational domain from the Public Suffix List: two companies under co.uk do not align.
    expect(noReplyReason([AR('spf=pass smtp.mailfrom=mail.acme.co.uk')], 'ana@sales.acme.co.uk')).toBeNull();
    expect(noReplyReason([AR('spf=pass smtp.mailfrom=evil.co.uk')], 'ana@acme.co.uk')).toBe('sender_unauthenticated');
  });

  it('does not answer mail whose sender was not authenticated for the From domain: missing, neutral, softfail, or a pass for another domain', () => {
    for (const headers of [
      [],
      [h('Subject', 'Pump question')],
      [AR('spf=softfail smtp.mailfrom=customer.example')],
      [AR('spf=neutral smtp.mailfrom=customer.example; dkim=none; dmarc=none')],
      [AR('spf=none; dkim=temperror header.d=customer.example')],
      [AR('spf=pass smtp.mailfrom=evil.example')],
      [AR('spf=pass')],
      [AR('dkim=pass header.d=evil.example')],
      [AR('dmarc=pass header.from=evil.example')],
      // A pass further down is not the receiving MTA's: anyone can write one into the message.
      [AR('spf=none'), AR('dmarc=pass header.from=customer.example')],
      [h('Received', 'from mx.evil.example'), h('X-Authentication-Results', 'mx.plant.example; dmarc=pass')],
    ]) {
      expect(noReplyReason(headers, PERSON)).toBe('sender_unauthenticated');
    }
  });

  it.each([
    [[h('Auto-Submitted', 'auto-replied')], 'auto_submitted'],
    [[h('AUTO-SUBMITTED', 'Auto-Generated; owner-email="x@y.example"')], 'auto_submitted'],
    [[h('auto-submitted', 'auto-notified')], 'auto_submitted'],
    [[h('X-Autoreply', 'yes')], 'auto_submitted'],
    [[h('X-Auto-Response-Suppress', 'DR, RN, NRN, OOF, AutoReply')], 'auto_reply_suppressed'],
    [[h('X-Auto-Response-Suppress', 'All')], 'auto_reply_suppressed'],
    [[h('Precedence', 'bulk')], 'bulk_precedence'],
    [[h('Precedence', 'List')], 'bulk_precedence'],
    [[h('Precedence', 'junk')], 'bulk_precedence'],
    [[h('List-Id', '<plant-news.customer.example>')], 'mailing_list'],
    [[h('List-Unsubscribe', '<mailto:leave@customer.example>')], 'mailing_list'],
    [[h('Return-Path', '<>')], 'system_sender'],
  ] as const)('%j: %s', (headers, reason) => {
    expect(noReplyReason(headers, PERSON)).toBe(reason);
  });

  it('does not answer machine senders', () => {
    for (const from of [
      'MAILER-DAEMON@mx.customer.example',
      'postmaster@customer.example',
      'no-reply@customer.example',
      'noreply@customer.example',
      'do-not-reply@customer.example',
    ]) {
      expect(noReplyReason([], from)).toBe('system_sender');
    }
    expect(noReplyReason([AR('dmarc=pass')], 'postmaster.jones@customer.example')).toBeNull();
  });

  it('honours failed sender authentication reported by the receiving MTA', () => {
    const results = (value: string) => noReplyReason([h('Authentication-Results', value)], PERSON);
    expect(results('mx.plant.example; spf=fail (sender IP is 203.0.113.9) smtp.mailfrom=customer.example')).toBe('spf_fail');
    expect(results('mx.plant.example; spf=pass smtp.mailfrom=customer.example; dkim=fail reason="signature verification failed" header.d=customer.example')).toBe('dkim_fail');
    // Two signatures, one valid: authenticated.
    expect(results('mx.plant.example; dkim=fail header.d=list.example; dkim=pass header.d=customer.example')).toBeNull();
    expect(results('mx.plant.example; spf=pass; dkim=pass; dmarc=fail header.from=customer.example')).toBe('dmarc_fail');
    // The method names and results in any case; the authserv-id is not a result.
    expect(results('spf=fail.example; SPF=Fail smtp.mailfrom=customer.example')).toBe('spf_fail');
    expect(results('spf=fail.example; none')).toBe('sender_unauthenticated');
    // Failures in any of several headers count.
    expect(noReplyReason([h('Authentication-Results', 'mx1.plant.example; spf=pass'), h('Authentication-Results', 'mx2.plant.example; spf=fail')], PERSON)).toBe('spf_fail');
  });
});

describe('headersOfLines', () => {
  it('reads mailparser header lines, unfolding continued values', () => {
    expect(
      headersOfLines([
        { key: 'auto-submitted', line: 'Auto-Submitted: auto-replied' },
        { key: 'authentication-results', line: 'Authentication-Results: mx.plant.example;\r\n\tspf=fail smtp.mailfrom=customer.example' },
      ]),
    ).toEqual([h('auto-submitted', 'auto-replied'), h('authentication-results', 'mx.plant.example; spf=fail smtp.mailfrom=customer.example')]);
  });
});
