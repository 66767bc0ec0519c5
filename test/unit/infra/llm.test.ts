import { createOpenAiCompatibleProvider, DEFAULT_LLM_CALLS_PER_TENANT, llmProviderFrom, LlmProviderError } from '../../../infra/llm';
import { TenantCapacityError } from '../../../infra/tenant-limiter';

const KEY = 'sk-secret-value-42';
const TENANT = 'tenant-1';

function stubFetch(respond: (url: string, init: RequestInit) => Response | Promise<Response>) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return respond(url, init);
  }) as unknown as typeof fetch;
  return { calls, fetchImpl };
}

describe('OpenAI-compatible provider', () => {
  it('posts the chat completion request and reads choices[0].message.content', async () => {
    const { calls, fetchImpl } = stubFetch(() => Response.json({ model: 'm-2024', choices: [{ message: { content: 'Improved prompt' } }] }));
    const provider = createOpenAiCompatibleProvider({ baseUrl: 'http://llm.local/v1/', apiKey: KEY, model: 'm' }, { fetchImpl });
    const result = await provider.complete({ tenantId: TENANT, messages: [{ role: 'user', content: 'hi' }], temperature: 0 });
    expect(result).toEqual({ engine: 'openai-compatible', model: 'm-2024', text: 'Improved prompt' });
    expect(calls[0].url).toBe('http://llm.local/v1/chat/completions');
    expect((calls[0].init.headers as Record<string, string>).authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(calls[0].init.body as string)).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0 });
  });

  it("sends the request's model (an agent's) instead of the configured default", async () => {
    const { calls, fetchImpl } = stubFetch(() => Response.json({ choices: [{ message: { content: 'ok' } }] }));
    const provider = createOpenAiCompatibleProvider({ baseUrl: 'http://llm.local/v1', apiKey: null, model: 'default-model' }, { fetchImpl });
    expect(await provider.complete({ tenantId: TENANT, messages: [], model: 'agent-model', temperature: 0.4 })).toEqual({
      engine: 'openai-compatible',
      model: 'agent-model',
      text: 'ok',
    });
    expect(JSON.parse(calls[0].init.body as string)).toMatchObject({ model: 'agent-model', temperature: 0.4 });
  });

  it('fails with the HTTP status only, never the key or the provider body', async () => {
    const { fetchImpl } = stubFetch(() => new Response(`invalid key ${KEY}`, { status: 401 }));
    const provider = createOpenAiCompatibleProvider({ baseUrl: 'http://llm.local/v1', apiKey: KEY, model: 'm' }, { fetchImpl });
    const err = await provider.complete({ tenantId: TENANT, messages: [] }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(LlmProviderError);
    expect((err as Error).message).toBe('language model answered HTTP 401');
  });

  it('refuses an answer without content', async () => {
    const { fetchImpl } = stubFetch(() => Response.json({ choices: [] }));
    const provider = createOpenAiCompatibleProvider({ baseUrl: 'http://llm.local', apiKey: null, model: 'm' }, { fetchImpl });
    await expect(provider.complete({ tenantId: TENANT, messages: [] })).rejects.toThrow('language model answer has no choices[0].message.content');
  });

  it('is configured only when LLM_BASE_URL is set', () => {
    expect(llmProviderFrom({ baseUrl: null, apiKey: KEY, model: 'm' })).toBeNull();
    expect(llmProviderFrom({ baseUrl: 'http://llm.local', apiKey: null, model: 'm' })?.model).toBe('m');
  });

  it("bounds one tenant's calls at once: beyond its share and its waiting room a call is refused, another tenant's goes through", async () => {
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const { calls, fetchImpl } = stubFetch(async () => {
      await held;
      return Response.json({ choices: [{ message: { content: 'ok' } }] });
    });
    const provider = createOpenAiCompatibleProvider({ baseUrl: 'http://llm.local', apiKey: null, model: 'm' }, { fetchImpl });
    const busy = Array.from({ length: 2 * DEFAULT_LLM_CALLS_PER_TENANT }, () => provider.complete({ tenantId: 'flooding', messages: [] }));
    await expect(provider.complete({ tenantId: 'flooding', messages: [] })).rejects.toBeInstanceOf(TenantCapacityError);
    expect(calls).toHaveLength(DEFAULT_LLM_CALLS_PER_TENANT); // the rest wait
    const other = provider.complete({ tenantId: 'quiet', messages: [] });
    answer();
    expect(await other).toMatchObject({ text: 'ok' });
    expect(await Promise.all(busy)).toHaveLength(2 * DEFAULT_LLM_CALLS_PER_TENANT);
  });
});
