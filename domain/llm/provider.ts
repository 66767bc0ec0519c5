/**
 * The language-model provider interface of DESIGN.md (Language models): an OpenAI-compatible HTTP
 * endpoint when one is configured (infra/llm.ts), the deterministic built-in engine otherwise.
 * Every result names the engine that produced it, so a response never claims a model result the
 * built-in engine computed, or the other way round.
 */
export type LlmEngine = 'built-in' | 'openai-compatible';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface CompletionRequest {
  /** Whose call it is: each tenant has its share of the provider's calls (infra/tenant-limiter.ts). */
  tenantId: string;
  messages: ChatMessage[];
  temperature?: number;
  /** The model to ask for (an agent's `model`); the provider's configured default when absent. */
  model?: string;
}

export interface CompletionResult {
  engine: LlmEngine;
  /** The model that answered (`built-in` for the built-in engine). */
  model: string;
  text: string;
}

export interface LlmProvider {
  readonly engine: LlmEngine;
  readonly model: string;
  complete(request: CompletionRequest): Promise<CompletionResult>;
}
