/**
 * The OpenAI-compatible provider (DESIGN.md, Language models): `POST {LLM_BASE_URL}/chat/completions`
 * with `Authorization: Bearer {LLM_API_KEY}` when a key is set. Configured from the environment
 * (infra/config.ts); without LLM_BASE_URL there is no provider and callers use the built-in engine.
 * Errors name the HTTP status only: never the key, never the provider's body (it may echo input).
 * Each tenant has its share of the process's calls (LLM_CALLS_PER_TENANT at once, as many waiting
 * up to 10 s): beyond it the call fails with a TenantCapacityError, and callers answer with the
 * built-in engine as they do when the provider fails, so a tenant flooding the model slows only itself.
 */
import type { LlmConfig } from './config';
import { tenantLimiter } from './tenant-limiter';
import type { CompletionRequest, CompletionResult, LlmProvider } from '../domain/llm/provider';
import { withoutTrailingSlashes } from '../domain/urls';

const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_LLM_CALLS_PER_TENANT = 4;
const LLM_WAIT_MS = 10_000;

export class LlmProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LlmProviderError';
  }
}

export function createOpenAiCompatibleProvider(
  config: { baseUrl: string; apiKey: string | null; model: string },
  options: { timeoutMs?: number; fetchImpl?: typeof fetch; callsPerTenant?: number } = {},
): LlmProvider {
  const url = `${withoutTrailingSlashes(config.baseUrl)}/chat/completions`;
  const doFetch = options.fetchImpl ?? fetch;
  const perTenant = options.callsPerTenant ?? DEFAULT_LLM_CALLS_PER_TENANT;
  const tenants = tenantLimiter('llm_calls', { maxInFlight: perTenant, maxWaiting: perTenant, maxWaitMs: LLM_WAIT_MS });
  return {
    engine: 'openai-compatible',
    model: config.model,
    complete: (request: CompletionRequest) => tenants.run(request.tenantId, () => complete(request)),
  };

  async function complete(request: CompletionRequest): Promise<CompletionResult> {
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
        body: JSON.stringify({
          model: request.model ?? config.model,
          messages: request.messages,
          ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        }),
        signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (err) {
      throw new LlmProviderError(`language model request failed: ${(err as Error).name}`);
    }
    if (!res.ok) throw new LlmProviderError(`language model answered HTTP ${res.status}`);
    const body = (await res.json().catch(() => null)) as { model?: unknown; choices?: { message?: { content?: unknown } }[] } | null;
    const text = body?.choices?.[0]?.message?.content;
    if (typeof text !== 'string') throw new LlmProviderError('language model answer has no choices[0].message.content');
    return { engine: 'openai-compatible', model: typeof body?.model === 'string' ? body.model : (request.model ?? config.model), text };
  }
}

/** The configured provider, or null when LLM_BASE_URL is not set (the built-in engine is used). */
export function llmProviderFrom(config: Omit<LlmConfig, 'planModels'>): LlmProvider | null {
  return config.baseUrl ? createOpenAiCompatibleProvider({ baseUrl: config.baseUrl, apiKey: config.apiKey, model: config.model }, { callsPerTenant: config.callsPerTenant }) : null;
}
