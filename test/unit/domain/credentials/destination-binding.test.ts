import { boundColumns, CREDENTIAL_BINDINGS, movedFields, requireCredentialToMove, requireStillBound, unboundFields } from '../../../../domain/credentials/destination-binding';
import { AppError } from '../../../../domain/errors';

const smtp = CREDENTIAL_BINDINGS.emailPassword;
const account = { id: 'a1', name: 'Support', smtp_host: 'mail.example.com', smtp_port: 587, smtp_secure: false, username: 'u' };
const stored = { ...account, password_destination: { smtp_host: 'mail.example.com', smtp_port: 587, smtp_secure: false } };

function thrown(fn: () => void): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected an error');
}

describe('credential bound to its destination', () => {
  it('stores the destination fields of the record, and only those', () => {
    expect(JSON.parse(boundColumns(smtp, account).password_destination)).toEqual({ smtp_host: 'mail.example.com', smtp_port: 587, smtp_secure: false });
  });

  it('names the destination fields a change moves; the same value, another field or an absent one moves nothing', () => {
    expect(movedFields(smtp, account, { smtp_host: 'evil.example.net', smtp_port: 587, name: 'x' })).toEqual(['smtp_host']);
    expect(movedFields(smtp, account, { smtp_port: 465, smtp_secure: true })).toEqual(['smtp_port', 'smtp_secure']);
    expect(movedFields(smtp, account, { username: 'other', name: 'Renamed' })).toEqual([]);
  });

  it('refuses a move without the credential with 422 CREDENTIAL_REQUIRED naming the field', () => {
    const err = thrown(() => requireCredentialToMove(smtp, account, { smtp_host: 'evil.example.net' }, { stored: true, credentialGiven: false }));
    expect(err).toBeInstanceOf(AppError);
    expect([err.code, err.status, err.extra]).toEqual(['CREDENTIAL_REQUIRED', 422, { field: 'body.password', moved_fields: ['smtp_host'] }]);
    expect(err.message).toBe('changing smtp_host sends the stored SMTP password to another destination: give body.password in the same request');
  });

  it('lets a move through with the credential, without a stored one, or when nothing moves', () => {
    const move = { smtp_host: 'evil.example.net' };
    expect(() => requireCredentialToMove(smtp, account, move, { stored: true, credentialGiven: true })).not.toThrow();
    expect(() => requireCredentialToMove(smtp, account, move, { stored: false, credentialGiven: false })).not.toThrow();
    expect(() => requireCredentialToMove(smtp, account, { name: 'x' }, { stored: true, credentialGiven: false })).not.toThrow();
  });

  it('at use: a record still pointing where the credential was given is bound; a changed field or no recorded destination is not', () => {
    expect(unboundFields(smtp, stored)).toEqual([]);
    expect(unboundFields(smtp, { ...stored, smtp_host: 'evil.example.net' })).toEqual(['smtp_host']);
    expect(unboundFields(smtp, { ...stored, password_destination: null })).toEqual(['smtp_host', 'smtp_port', 'smtp_secure']);
    const webhook = CREDENTIAL_BINDINGS.webhookSecret;
    expect(unboundFields(webhook, { url: 'https://b.example.com', secret_destination: { url: 'https://a.example.com' } })).toEqual(['url']);
    const err = thrown(() => requireStillBound(smtp, { ...stored, smtp_port: 25 }));
    expect([err.code, err.status, err.extra]).toEqual(['CREDENTIAL_REQUIRED', 422, { field: 'body.password', moved_fields: ['smtp_port'] }]);
    expect(() => requireStillBound(smtp, stored)).not.toThrow();
  });
});
