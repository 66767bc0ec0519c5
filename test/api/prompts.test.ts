import { createServer, IncomingMessage, Server } from 'node:http';
import { requestListener } from '../../api/listen';
import { AddressInfo } from 'node:net';
import { createTenant, createUser, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { DEFAULT_PLAN_MODELS } from '../../domain/tenancy/plans';

/** An OpenAI-compatible endpoint on a free port: answers `reply` (or `status`), records requests. */
async function fakeModel(): Promise<{ url: string; requests: { auth: string | undefined; body: any }[]; set(status: number, reply?: string): void; close(): Promise<void> }> {
  const requests: { auth: string | undefined; body: any }[] = [];
  let status = 200;
  let reply = 'You are a careful assistant. (rewritten by the fake model)';
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => resolve(data));
    });
  const server: Server = createServer(
    requestListener(async (req, res) => {
      requests.push({ auth: req.headers.authorization, body: JSON.parse(await read(req)) });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? JSON.stringify({ model: 'fake-model-1', choices: [{ message: { role: 'assistant', content: reply } }] }) : '{"error":"boom"}');
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    set(s, r) {
      status = s;
      if (r !== undefined) reply = r;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(async () => api?.close());

describe('POST /api/v1/prompts/optimize', () => {
  it('answers the built-in suggestion, its checks and changes, labelled built-in', async () => {
    const res = await api.request('/api/v1/prompts/optimize', {
      method: 'POST',
      token: tenant.token,
      json: { system_prompt: 'Help people with the pumps.', agent_type: 'whatsapp', language: 'es' },
    });
    expect(res.status).toBe(200);
    expect(res.body.engine).toBe('built-in');
    expect(res.body.model).toBe('built-in');
    expect(res.body.checks.map((c: any) => `${c.id}:${c.passed}:${c.engine}`)).toEqual([
      'role:false:built-in',
      'constraints:false:built-in',
      'output_format:false:built-in',
      'tone:false:built-in',
      'language:false:built-in',
      'safety:false:built-in',
      'length:false:built-in',
    ]);
    expect(res.body.changes.map((c: any) => c.check)).toEqual(['role', 'constraints', 'output_format', 'tone', 'language', 'safety']);
    expect(res.body.changes.every((c: any) => c.engine === 'built-in' && c.why.length > 20)).toBe(true);
    expect(res.body.suggested_prompt).toContain('Help people with the pumps.');
    expect(res.body.suggested_prompt).toContain('Language: always reply in Spanish, whatever the language of the message.');
    expect(res.body.notice).toBeUndefined();
  });

  it('validates the body (422 naming the field) and needs manage_agents (403)', async () => {
    expectError(await api.request('/api/v1/prompts/optimize', { method: 'POST', token: tenant.token, json: { agent_type: 'email' } }), 422, 'VALIDATION_ERROR');
    const badLang = await api.request('/api/v1/prompts/optimize', { method: 'POST', token: tenant.token, json: { system_prompt: 'x', language: 'Spanish' } });
    expectError(badLang, 422, 'VALIDATION_ERROR');
    expect(badLang.text).toContain('body.language');
    const technician = await createUser(api, tenant.tenantId, 'technician');
    expectError(await api.request('/api/v1/prompts/optimize', { method: 'POST', token: technician.token, json: { system_prompt: 'x' } }), 403, 'FORBIDDEN');
  });

  it('uses a configured OpenAI-compatible model for the suggested prompt, and falls back to built-in when it fails', async () => {
    const model = await fakeModel();
    const withModel = await startTestApi({ llm: { baseUrl: model.url, apiKey: 'sk-test-key-123', model: 'configured-model', planModels: DEFAULT_PLAN_MODELS } });
    try {
      const res = await withModel.request('/api/v1/prompts/optimize', { method: 'POST', token: tenant.token, json: { system_prompt: 'Help people with the pumps.' } });
      expect(res.status).toBe(200);
      expect(res.body.engine).toBe('openai-compatible');
      expect(res.body.model).toBe('fake-model-1');
      expect(res.body.suggested_prompt).toBe('You are a careful assistant. (rewritten by the fake model)');
      expect(res.body.changes.map((c: any) => c.check)).toEqual(['role', 'constraints', 'output_format', 'tone', 'language', 'safety']);
      expect(model.requests).toHaveLength(1);
      expect(model.requests[0].auth).toBe('Bearer sk-test-key-123');
      expect(model.requests[0].body.model).toBe('configured-model');
      expect(model.requests[0].body.messages[1].content).toContain('Original prompt:\nHelp people with the pumps.');
      expect(model.requests[0].body.messages[1].content).toContain('- safety: ');
      expect(res.text).not.toContain('sk-test-key-123');

      model.set(500);
      const failed = await withModel.request('/api/v1/prompts/optimize', { method: 'POST', token: tenant.token, json: { system_prompt: 'Help people with the pumps.' } });
      expect(failed.status).toBe(200);
      expect(failed.body.engine).toBe('built-in');
      expect(failed.body.suggested_prompt).toMatch(/^You are an assistant of an industrial operations team/);
      expect(failed.body.notice).toMatch(/language model failed/);
    } finally {
      await withModel.close();
      await model.close();
    }
  });
});
