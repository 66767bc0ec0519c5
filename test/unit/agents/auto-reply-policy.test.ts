/**
 * Which inbound mail the e-mail agent leaves unanswered: automatic and bulk mail, machine
 * senders, and failed SPF / DKIM / DMARC results of the receiving MTA; ordinary mail is answered.
 */
import { headersOfLines, MailHeader, noReplyReason } from '../../../domain/agents/auto-reply-policy';

const h = (name: string, value: string): MailHeader => ({ name, value });
const PERSON = 'ana@customer.example';

describe('noReplyReason', () => {
  it('answers ordinary mail, also with passing authentication and Auto-Submitted: no', () => {
    expect(noReplyReason([h('Subject', 'Pump question')], PERSON)).toBeNull();
    expect(
      noReplyReason(
        [h('Auto-Submitted', 'no'), h('Authentication-Results', 'mx.plant.example; spf=pass smtp.mailfrom=customer.example; dkim=pass header.d=customer.example; dmarc=pass')],
        PERSON,
      ),
    ).toBeNull();
    expect(noReplyReason([h('Precedence', 'first-class')], PERSON)).toBeNull();
    expect(noReplyReason([h('Authentication-Results', 'mx.plant.example; spf=softfail smtp.mailfrom=customer.example')], PERSON)).toBeNull();
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
    expect(noReplyReason([], 'postmaster.jones@customer.example')).toBeNull();
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
    expect(results('spf=fail.example; none')).toBeNull();
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
