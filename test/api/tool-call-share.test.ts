/**
 * An agent's HTTP tool call runs within its tenant's share of the process's tool calls
 * (infra/tenant-limiter.ts): with the share taken, the call is refused before anything is sent or
 * logged, so the activity's retry makes it later (TenantBusy), once.
 */
import { randomUUID } from 'node:crypto';
import { runToolCall } from '../../activities/conversation-tools';
import { TenantCapacityError, TenantLimiter } from '../../infra/tenant-limiter';
import { createTenant, startTestApi, TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

it("refuses a tool call beyond its tenant's share before sending or logging it", async () => {
  const tenant = await createTenant(api);
  const shares = new TenantLimiter('tool_calls', { maxInFlight: 1, maxWaiting: 0, maxWaitMs: 0 });
  let release!: () => void;
  const held = shares.run(tenant.tenantId, () => new Promise<void>((resolve) => (release = resolve)));
  const ctx = { tenantId: tenant.tenantId, conversationId: randomUUID(), messageId: randomUUID(), agentId: randomUUID(), contactId: randomUUID(), now: new Date() };
  const call = { tool: { id: randomUUID(), name: 'erp_lookup', kind: 'http' as const, url: 'https://erp.example.invalid/lookup', parameters: {} }, arguments: { asset: 'P-101' } };

  await expect(runToolCall(api.deps.db, ctx, call, shares)).rejects.toBeInstanceOf(TenantCapacityError);
  expect(await api.deps.db('tool_calls').where({ tenant_id: tenant.tenantId, message_id: ctx.messageId })).toHaveLength(0);
  expect(shares.refused).toBe(1);
  release();
  await held;
});
