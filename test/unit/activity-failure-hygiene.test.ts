import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { safeActivityFailure, tenantBusyDelayMs } from '../../activities/failure-hygiene';
import { TenantCapacityError } from '../../infra/tenant-limiter';
import { ContentError as DomainContentError } from '../../domain/content-error';
import { ContentError, SandboxUnavailableError } from '../../infra/sandbox/protocol';

const asFailure = (err: unknown) => safeActivityFailure(err) as ApplicationFailure;

describe('safeActivityFailure', () => {
  it('makes programming errors non-retryable, but not a network failure wearing a TypeError', () => {
    expect(asFailure(new TypeError("Cannot read properties of undefined (reading 'x')"))).toMatchObject({ type: 'ProgrammingError', nonRetryable: true });
    expect(asFailure(new RangeError('Invalid time value'))).toMatchObject({ type: 'ProgrammingError', nonRetryable: true });
    const fetchFailed = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    expect(asFailure(fetchFailed)).toMatchObject({ type: 'TypeError', nonRetryable: false });
  });

  it("replaces PostgreSQL's text (which quotes values) by its code; data and constraint errors are permanent, others transient", () => {
    const pg = (code: string, message: string, constraint?: string) => Object.assign(new Error(message), { code, severity: 'ERROR', constraint });
    expect(asFailure(pg('22P02', 'invalid input syntax for type uuid: "maria@example.com"'))).toMatchObject({ message: 'PostgreSQL 22P02', type: 'DataError', nonRetryable: true });
    expect(asFailure(pg('23505', 'duplicate key value violates unique constraint "users_email_key"', 'users_email_key'))).toMatchObject({
      message: 'PostgreSQL 23505 (users_email_key)',
      nonRetryable: true,
    });
    expect(asFailure(pg('40001', 'could not serialize access'))).toMatchObject({ message: 'PostgreSQL 40001', type: 'DatabaseError', nonRetryable: false });
    expect(asFailure(pg('57P01', 'terminating connection due to administrator command'))).toMatchObject({ nonRetryable: false });
  });

  it("redacts personal data from every other message, keeps deliberate failures deliberate, and leaves Temporal's own alone", () => {
    const plain = asFailure(new Error('550 <maria.schmidt@plant.example.com>: no such user'));
    expect(plain.message).toBe('550 <[redacted:email]>: no such user');
    expect(plain.nonRetryable).toBe(false);
    const deliberate = asFailure(ApplicationFailure.nonRetryable('source unreadable for ana@example.org', 'SourceError'));
    expect(deliberate).toMatchObject({ message: 'source unreadable for [redacted:email]', type: 'SourceError', nonRetryable: true });
    const cancelled = new CancelledFailure('cancelled');
    expect(safeActivityFailure(cancelled)).toBe(cancelled);
    expect(asFailure('a string thrown')).toMatchObject({ message: 'a string thrown', nonRetryable: false });
  });

  it('fails content that cannot be processed at its first attempt, with its reason and without the content', () => {
    const failure = asFailure(new DomainContentError('too_many_parts', 'the message has more than 200 MIME parts (from sam@example.com)'));
    expect(failure).toMatchObject({ type: 'ContentError', nonRetryable: true, message: 'the message has more than 200 MIME parts (from [redacted:email])' });
  });

  it('retries a tenant over its share later, after a delay of at least a second that grows with the attempts, without counting a failure', () => {
    const busy = safeActivityFailure(new TenantCapacityError('webhook_attempts', 'full'), 1) as ApplicationFailure;
    expect(busy).toMatchObject({ type: 'TenantBusy', nonRetryable: false });
    const delay = Number(busy.nextRetryDelay);
    expect(delay).toBeGreaterThanOrEqual(2_000);
    expect(delay).toBeLessThanOrEqual(4_000);
    expect(tenantBusyDelayMs(1, () => 0)).toBe(2_000);
    expect(tenantBusyDelayMs(3, () => 1)).toBe(16_000);
    expect(tenantBusyDelayMs(50, () => 1)).toBe(60_000);
  });

  it('fails untrusted content that broke a sandbox bound at once, with its reason; a busy sandbox is retried', () => {
    const content = asFailure(new ContentError('memory', 'the report needs more than 384 MiB of memory to process, the limit for uploaded content'));
    expect(content).toMatchObject({ type: 'ContentError', nonRetryable: true, message: 'the report needs more than 384 MiB of memory to process, the limit for uploaded content' });
    expect(asFailure(new SandboxUnavailableError('the content sandbox is busy: try again shortly'))).toMatchObject({ nonRetryable: false });
  });
});
