import { loadConfig } from '../../../infra/config';
import { DEFAULT_PLAN_MODELS, planAllowsModel } from '../../../domain/tenancy/plans';

const env = {
  APP_ENV: 'test',
  DATABASE_URL: 'postgres://app@localhost/db',
  S3_ENDPOINT: 'http://localhost:9000',
  JWT_SECRET: 'j'.repeat(40),
  INTERNAL_JWT_SECRET: 'i'.repeat(40),
  DATA_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};

describe('models per plan', () => {
  it('allow the built-in engine everywhere and each plan its list', () => {
    expect(planAllowsModel(DEFAULT_PLAN_MODELS, 'free', 'built-in')).toBe(true);
    expect(planAllowsModel(DEFAULT_PLAN_MODELS, 'free', 'gpt-4o-mini')).toBe(false);
    expect(planAllowsModel(DEFAULT_PLAN_MODELS, 'starter', 'gpt-4o-mini')).toBe(true);
    expect(planAllowsModel(DEFAULT_PLAN_MODELS, 'starter', 'gpt-4o')).toBe(false);
    expect(planAllowsModel(DEFAULT_PLAN_MODELS, 'enterprise', 'gpt-4o')).toBe(true);
  });

  it('come from LLM_PLAN_MODELS for the plans it names, and a malformed value stops the start', () => {
    const models = loadConfig({ ...env, LLM_PLAN_MODELS: '{"starter": ["llama-3.1-8b"], "free": []}' }).llm.planModels;
    expect(models).toEqual({ ...DEFAULT_PLAN_MODELS, starter: ['llama-3.1-8b'], free: [] });
    expect(() => loadConfig({ ...env, LLM_PLAN_MODELS: '{"gold": ["x"]}' })).toThrow(/LLM_PLAN_MODELS .*"gold" is no plan/);
    expect(() => loadConfig({ ...env, LLM_PLAN_MODELS: '{"free": "x"}' })).toThrow(/LLM_PLAN_MODELS/);
    expect(() => loadConfig({ ...env, LLM_PLAN_MODELS: '[]' })).toThrow(/LLM_PLAN_MODELS/);
  });
});
