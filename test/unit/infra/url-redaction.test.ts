import { redactUrl, redactUrlAttribute } from '../../../infra/url-redaction';

describe('URLs in spans', () => {
  it('keep query names and drop their values, the verify token and signatures among them', () => {
    expect(redactUrl('/api/v1/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=s3cr3t-verify&hub.challenge=42')).toBe(
      '/api/v1/whatsapp/webhook?hub.mode=REDACTED&hub.verify_token=REDACTED&hub.challenge=REDACTED',
    );
    expect(redactUrl('https://ops.example.com/api/v1/privacy/exports/6f1c2d3e-0000-4000-8000-000000000002/archive?tenant=t&expires=1&signature=abc#x')).toBe(
      'https://ops.example.com/api/v1/privacy/exports/6f1c2d3e-0000-4000-8000-000000000002/archive?tenant=REDACTED&expires=REDACTED&signature=REDACTED',
    );
    expect(redactUrl('?X-Amz-Signature=deadbeef&flag')).toBe('?X-Amz-Signature=REDACTED&flag');
  });

  it('drop token-like path segments and userinfo, and keep ids, route names and plain paths', () => {
    expect(redactUrl('https://hooks.chat.example/services/T0AB12CD/B0CD34EF/XyZ12aBcD34eFgH56iJkL78m')).toBe('https://hooks.chat.example/services/T0AB12CD/B0CD34EF/REDACTED');
    expect(redactUrl('http://user:pa55@llm.example:8080/gw/tok_4f9a0c3e1b7d2a6f8e5c/v1/chat/completions')).toBe('http://llm.example:8080/gw/REDACTED/v1/chat/completions');
    for (const kept of ['/api/v1/assets/6f1c2d3e-0000-4000-8000-000000000001', '/api/v1/extraction-templates', '/api/v1/maintenance-optimize/run', 'https://s3.example.com', '/']) {
      expect(redactUrl(kept)).toBe(kept);
    }
  });
});

describe('redactUrlAttribute', () => {
  it('reads url.query as a query without its question mark and url.path as a path', () => {
    expect(redactUrlAttribute('url.query', 'hub.mode=subscribe&hub.verify_token=s3cr3t-verify&flag')).toBe('hub.mode=REDACTED&hub.verify_token=REDACTED&flag');
    expect(redactUrlAttribute('url.path', '/services/T0AB12CD/B0CD34EF/XyZ12aBcD34eFgH56iJkL78m')).toBe('/services/T0AB12CD/B0CD34EF/REDACTED');
    expect(redactUrlAttribute('url.full', 'http://u:p@h.example/a?token=x')).toBe('http://h.example/a?token=REDACTED');
  });
});
