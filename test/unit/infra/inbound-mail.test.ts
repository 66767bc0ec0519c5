/**
 * Inbound mail parsed in a worker thread of its own (infra/inbound-mail.ts): what the API keeps of a
 * message, each bound refused with its reason, and one tenant's share of the threads.
 */
import { createHash } from 'node:crypto';
import { createInboundMailParser, MAIL_LIMITS, type MailLimits, MailRefused, parseMailInThread } from '../../../infra/inbound-mail';
import { TenantCapacityError } from '../../../infra/tenant-limiter';
import * as mime from '../../support/hostile-corpus/mime';

jest.setTimeout(120_000);

const refusalOf = (raw: Buffer, limits: MailLimits = MAIL_LIMITS) =>
  parseMailInThread(raw, limits).then(
    () => null,
    (err: unknown) => (err instanceof MailRefused ? err.refusal : err),
  );

describe('parseMailInThread', () => {
  it('answers the sender, subject, Message-ID, text, header lines and digest, and takes the message', async () => {
    const text = `Hall 3: the pump leaks. ${'Details follow. '.repeat(8_000)}`;
    const raw = mime.ordinary(text);
    const digest = createHash('sha256').update(raw).digest('hex');
    const mail = await parseMailInThread(raw);
    expect(mail).toMatchObject({
      from: { address: 'sender@outside.example', name: 'Hostile Sender' },
      subject: 'hostile',
      messageId: '<ordinary@outside.example>',
      text: `${text}\n`,
      sha256: digest,
    });
    expect(mail.headerLines).toContainEqual({ key: 'from', line: 'From: Hostile Sender <sender@outside.example>' });
    expect(raw.length).toBe(0); // moved to the thread, not copied (one of Node's pooled small Buffers is copied)
  });

  it('refuses each bound with its reason', async () => {
    expect(await refusalOf(mime.manyParts(MAIL_LIMITS.maxParts + 10))).toBe('too_many_parts');
    expect(await refusalOf(mime.headerLines(2 * MAIL_LIMITS.maxHeaderBytes))).toBe('headers_too_large');
    expect(await refusalOf(mime.largeAttachment(2 * 1024 * 1024), { ...MAIL_LIMITS, maxDecodedBytes: 1024 * 1024 })).toBe('decoded_too_large');
    expect(await refusalOf(mime.largeAttachment(1024 * 1024), { ...MAIL_LIMITS, timeoutMs: 1 })).toBe('too_complex');
    expect(await refusalOf(mime.badTransferEncodings.brokenQuotedPrintable(4 * 1024 * 1024), { ...MAIL_LIMITS, maxHeapMb: 8 })).toBe('too_complex');
    expect(await refusalOf(mime.manyParts(MAIL_LIMITS.maxParts - 10))).toBeNull();
  });
});

describe('createInboundMailParser', () => {
  it("holds one tenant to its share (one parsing, four waiting) while another tenant's mail is parsed beside it", async () => {
    const parser = createInboundMailParser({ threads: 2 });
    const slow = () => mime.largeAttachment(6 * 1024 * 1024);
    // The order in which parses end: tenant A's run one at a time, so B, on the other thread, ends
    // before A's second whatever the machine's speed; queued behind A it would end after all five.
    const ended: string[] = [];
    const flood = Array.from({ length: 6 }, () =>
      parser.parse('tenant-a', slow()).then(
        () => {
          ended.push('a');
          return 'parsed';
        },
        (err: unknown) => (err instanceof TenantCapacityError ? 'refused' : String(err)),
      ),
    );
    await parser.parse('tenant-b', mime.ordinary());
    ended.push('b');
    const outcomes = await Promise.all(flood);
    expect(outcomes.sort()).toEqual(['parsed', 'parsed', 'parsed', 'parsed', 'parsed', 'refused']);
    expect(ended.indexOf('b')).toBeLessThanOrEqual(1);
  });
});
