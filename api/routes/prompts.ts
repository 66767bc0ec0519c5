/**
 * `/api/v1/prompts` (issue 7): the prompt optimizer. The built-in engine's rule-based checks
 * (domain/agents/prompt-optimizer.ts) always run and give the `checks` and `changes`. When an
 * OpenAI-compatible model is configured (LLM_BASE_URL), it rewrites the prompt with those findings
 * and the answer says `engine: "openai-compatible"`; otherwise, or when the model fails, the
 * suggested prompt is the built-in one and the answer says `engine: "built-in"`.
 */
import Joi from '../../domain/joi';
import { AGENT_TYPES, AgentType } from '../../domain/agents/agents';
import { optimizePrompt, PROMPT_CHECK_IDS, PromptOptimization } from '../../domain/agents/prompt-optimizer';
import type { LlmProvider } from '../../domain/llm/provider';
import { llmProviderFrom } from '../../infra/llm';
import { AppContext, userOf } from '../context';
import { ApiRouter } from '../route';

interface OptimizeBody {
  system_prompt: string;
  agent_type?: AgentType;
  language?: string;
}

const optimizeResponse = Joi.object({
  engine: Joi.string().valid('built-in', 'openai-compatible').description('Who wrote suggested_prompt'),
  model: Joi.string().description('`built-in`, or the model that answered'),
  suggested_prompt: Joi.string(),
  changes: Joi.array().items(
    Joi.object({
      check: Joi.string().valid(...PROMPT_CHECK_IDS),
      action: Joi.string().valid('added', 'removed'),
      text: Joi.string(),
      why: Joi.string(),
      engine: Joi.string().valid('built-in'),
    }),
  ),
  checks: Joi.array().items(Joi.object({ id: Joi.string().valid(...PROMPT_CHECK_IDS), passed: Joi.boolean(), detail: Joi.string(), engine: Joi.string().valid('built-in') })),
  notice: Joi.string().description('Present when the configured model failed and the built-in suggestion is returned'),
});

/** Asks the model to rewrite the prompt, applying the built-in findings; the text is the model's. */
async function modelRewrite(tenantId: string, provider: LlmProvider, body: OptimizeBody, found: PromptOptimization): Promise<{ model: string; text: string }> {
  const findings = found.checks.filter((c) => !c.passed).map((c) => `- ${c.id}: ${c.detail}`);
  const result = await provider.complete({
    tenantId,
    temperature: 0,
    messages: [
      {
        role: 'system',
        content:
          'You improve system prompts of industrial operations assistants. Return only the improved system prompt, no commentary. ' +
          'Keep every instruction of the original; fix the listed findings.',
      },
      {
        role: 'user',
        content: [
          `Agent type: ${body.agent_type ?? 'unspecified'}; reply language: ${body.language ?? "the user's"}.`,
          `Findings:\n${findings.length > 0 ? findings.join('\n') : '- none'}`,
          `Original prompt:\n${body.system_prompt}`,
        ].join('\n\n'),
      },
    ],
  });
  const text = result.text.trim();
  if (text === '') throw new Error('the language model returned an empty prompt');
  return { model: result.model, text };
}

export function promptRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/prompts');

  api.route<unknown, unknown, OptimizeBody>({
    method: 'post',
    path: '/optimize',
    summary: 'Suggest an improved system prompt, with each change and why',
    description:
      'Rule-based checks (role, constraints, output format, tone, language, safety/escalation, length) by the built-in engine. ' +
      '`engine` says who wrote `suggested_prompt`: `built-in`, or `openai-compatible` when LLM_BASE_URL is configured. Nothing is stored.',
    tags: ['prompts'],
    auth: 'user',
    permission: 'manage_agents',
    body: Joi.object({
      system_prompt: Joi.string().trim().min(1).max(20_000).required(),
      agent_type: Joi.string().valid(...AGENT_TYPES),
      language: Joi.string()
        .pattern(/^[a-z]{2,3}(-[A-Z]{2})?$/)
        .messages({ 'string.pattern.base': 'must be a language tag such as "es" or "pt-BR"' }),
    }),
    responses: { 200: { description: 'Suggestion', schema: optimizeResponse }, 422: { description: 'Invalid body' } },
    handler: async (ctx: AppContext, { body }) => {
      const found = optimizePrompt({ systemPrompt: body.system_prompt, agentType: body.agent_type, language: body.language });
      const labelled = {
        changes: found.changes.map((c) => ({ ...c, engine: 'built-in' as const })),
        checks: found.checks.map((c) => ({ ...c, engine: 'built-in' as const })),
      };
      const builtIn = { engine: 'built-in', model: 'built-in', suggested_prompt: found.suggestedPrompt, ...labelled };
      const provider = llmProviderFrom(ctx.deps.config.llm);
      if (!provider) {
        ctx.body = builtIn;
        return;
      }
      try {
        const rewrite = await modelRewrite(userOf(ctx).tenantId, provider, body, found);
        ctx.body = { engine: provider.engine, model: rewrite.model, suggested_prompt: rewrite.text, ...labelled };
      } catch (err) {
        ctx.state.log.warn({ err: (err as Error).message }, 'language model failed; answering with the built-in suggestion');
        ctx.body = { ...builtIn, notice: "The configured language model failed; this suggestion is the built-in engine's." };
      }
    },
  });

  return api;
}
