/**
 * Machine agents on the time-skipping server, with their real activities against a real
 * (migrated) PostgreSQL, fed by the dispatcher's own signalling code (orchestration/machine-agents):
 * a burst of events inside the cooldown runs the agent once, and the next event after the
 * cooldown runs it again.
 */
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createMachineAgentActivities } from '../../activities/machine-agents';
import { createNotificationActivities } from '../../activities/notifications';
import { appendEvent } from '../../db/outbox';
import { provisionTenant } from '../../db/tenants';
import { NO_ASSET, TriggeringEvent } from '../../domain/agents/machine-agent';
import type { LlmProvider } from '../../domain/llm/provider';
import { createOpenAiCompatibleProvider } from '../../infra/llm';
import { TASK_QUEUES } from '../../infra/task-queues';
import { workflowIds } from '../../infra/workflow-ids';
import type { TemporalGateway } from '../../infra/temporal';
import { signalMachineAgent, signalMachineAgents } from '../../orchestration/machine-agents';
import { startNotificationDelivery } from '../../orchestration/notifications';
import { machineAgentStateQuery, MachineAgentState } from '../../workflows/machine-agent';
import { recordHistory } from '../support/record-history';
import { createTimeSkippingEnv, registerSearchAttributes } from '../support/temporal-env';
import { startTestPostgres, TestPostgres } from '../support/test-postgres';
import { startWebhookReceiver } from '../support/webhook-receiver';
import { until } from '../support/until';
import { DEFAULT_PLAN_MODELS, type PlanName } from '../../domain/tenancy/plans';

jest.setTimeout(240_000);

let pg: TestPostgres;
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let currentLlm: LlmProvider | null = null;

beforeAll(async () => {
  [pg, env] = await Promise.all([startTestPostgres(), createTimeSkippingEnv()]);
  await registerSearchAttributes(env); // the dispatcher and notification starts set TenantId/ResourceId, as in production
  const gateway: TemporalGateway = { client: async () => env.client, callDeadlineMs: 5_000, ping: async () => undefined, close: async () => undefined };
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUES.main,
    workflowsPath: require.resolve('../../workflows'),
    activities: {
      ...createMachineAgentActivities({
        db: pg.db,
        startNotification: (tenant, id) => startNotificationDelivery(gateway, tenant, id),
        // Read at each run, so one test can configure a language model for its own runs.
        get llm() {
          return currentLlm;
        },
        // As LLM_PLAN_MODELS would: the stand-in provider's model on the enterprise plan.
        planModels: { ...DEFAULT_PLAN_MODELS, enterprise: [...DEFAULT_PLAN_MODELS.enterprise, 'plant-gpt-2'] },
      }),
      ...createNotificationActivities({ db: pg.db, mailer: null, from: 'test@example.com' }),
    },
  });
  running = worker.run();
});

afterAll(async () => {
  if (worker && worker.getState() === 'RUNNING') worker.shutdown();
  await running?.catch(() => undefined);
  await env?.teardown();
  await pg?.stop();
});

async function machineAgent(cooldownMinutes: number, columns: Record<string, unknown> = {}, plan: PlanName = 'enterprise'): Promise<{ tenantId: string; agentId: string }> {
  const suffix = randomUUID().slice(0, 8);
  const { tenant_id: tenantId } = await provisionTenant(pg.db, {
    name: `Plant ${suffix}`,
    plan,
    adminEmail: `admin-${suffix}@example.com`,
    adminPassword: `pw-${randomUUID()}`,
  });
  const [agent] = await pg
    .db('agents')
    .insert({
      tenant_id: tenantId,
      name: 'Vibration watcher',
      type: 'machine',
      system_prompt: 'Watch vibration alarms.',
      model: 'built-in',
      temperature: 0.2,
      trigger_config: JSON.stringify({ event_types: ['vibration.threshold_exceeded'], cooldown_minutes: cooldownMinutes }),
      created_at: new Date(Date.now() - 60_000),
      ...columns,
    })
    .returning('id');
  return { tenantId, agentId: agent.id };
}

async function storeEvents(tenantId: string, type: string, data: Record<string, unknown>, count: number): Promise<TriggeringEvent[]> {
  return pg.db.transaction(async (tx) => {
    const events: TriggeringEvent[] = [];
    for (let i = 0; i < count; i += 1) {
      const { id } = await appendEvent(tx, { tenantId, type, data: { ...data, seq: i } });
      events.push(await tx('outbox_events').where({ id }).first('id', 'tenant_id', 'type', 'data', 'created_at'));
    }
    return events;
  });
}

const runsOf = (tenantId: string, agentId: string) =>
  pg
    .db('machine_agent_runs')
    .where({ tenant_id: tenantId, agent_id: agentId })
    .orderBy('created_at')
    .select('event_id', 'asset_id', 'action', 'suppressed_events', 'reply_text', 'notification_id');

describe('machine agent workflow', () => {
  it('runs once for a burst of 10 events inside the cooldown, and again after the cooldown', async () => {
    const { tenantId, agentId } = await machineAgent(30);
    const assetId = randomUUID();
    const burst = await storeEvents(tenantId, 'vibration.threshold_exceeded', { asset_id: assetId, rms_mm_s: 11.2 }, 10);
    // An event type the agent does not list never reaches it.
    const other = await storeEvents(tenantId, 'asset.created', { asset_id: assetId }, 1);
    expect(await signalMachineAgents(pg.db, env.client, [...burst, ...other])).toBe(10);

    const handle = env.client.workflow.getHandle(workflowIds.machineAgent(tenantId, agentId, assetId));
    const state = await until<MachineAgentState>(
      () => handle.query(machineAgentStateQuery),
      (s) => s.coolingDown && s.runs + s.suppressed === 10,
      'the burst',
    );
    expect(state).toEqual({ runs: 1, suppressed: 9, coolingDown: true, pending: 0 });

    const [first] = await runsOf(tenantId, agentId);
    expect(first).toMatchObject({ event_id: burst[0].id, asset_id: assetId, action: 'notified', suppressed_events: 0 });
    expect(first.reply_text).toBe(
      `[built-in engine] Event vibration.threshold_exceeded on asset ${assetId} (rms_mm_s=11.2, seq=0). Agent "Vibration watcher" notified the tenant's administrators; further events of this asset wait for the cooldown.`,
    );
    const notification = await until(
      () => pg.db('notifications').where({ id: first.notification_id }).first('category', 'status', 'body'),
      (n) => n?.status === 'recorded',
      'the notification',
    );
    expect(notification).toEqual({ category: 'machine_agent.run', status: 'recorded', body: first.reply_text });

    // Still inside the cooldown: the dispatcher counts the event on the run and sends no signal.
    await env.sleep('29 minutes');
    expect(await signalMachineAgents(pg.db, env.client, await storeEvents(tenantId, 'vibration.threshold_exceeded', { asset_id: assetId }, 1))).toBe(0);
    expect(await runsOf(tenantId, agentId)).toEqual([expect.objectContaining({ suppressed_events: 1 })]);
    expect(await handle.query(machineAgentStateQuery)).toMatchObject({ suppressed: 9, coolingDown: true });

    // The cooldown ends: both counts land on the run, the dispatcher signals again, the idle workflow ends.
    await env.sleep('2 minutes');
    expect(await handle.result()).toEqual({ runs: 1, suppressed: 9 });
    await recordHistory('machine-agent-burst-cooldown', handle);
    expect(await pg.db('machine_agent_runs').where({ tenant_id: tenantId, agent_id: agentId }).first('suppressed_events', 'cooldown_until')).toEqual({
      suppressed_events: 10,
      cooldown_until: null,
    });

    // After the cooldown the next event runs the agent again.
    const [later] = await storeEvents(tenantId, 'vibration.threshold_exceeded', { asset_id: assetId }, 1);
    await signalMachineAgents(pg.db, env.client, [later]);
    const runs = await until(
      () => runsOf(tenantId, agentId),
      (r) => r.length === 2,
      'the second run',
    );
    expect(runs[1]).toMatchObject({ event_id: later.id, action: 'notified', suppressed_events: 0 });
  });

  it('keeps one cooldown per asset, and runs every event with cooldown 0', async () => {
    const { tenantId, agentId } = await machineAgent(0);
    const [a, b] = [randomUUID(), randomUUID()];
    const events = [
      ...(await storeEvents(tenantId, 'vibration.threshold_exceeded', { asset_id: a }, 3)),
      ...(await storeEvents(tenantId, 'vibration.threshold_exceeded', { asset_id: b }, 2)),
    ];
    await signalMachineAgents(pg.db, env.client, events);
    const runs = await until(
      () => runsOf(tenantId, agentId),
      (r) => r.length === 5,
      'five runs',
    );
    expect(runs.filter((r) => r.asset_id === a)).toHaveLength(3);
    expect(runs.filter((r) => r.asset_id === b)).toHaveLength(2);
    const handleA = () => env.client.workflow.getHandle(workflowIds.machineAgent(tenantId, agentId, a));
    expect(await handleA().result()).toEqual({ runs: 3, suppressed: 0 });
    // A redispatched event does not run the agent twice.
    await signalMachineAgents(pg.db, env.client, [events[0]]);
    expect(await handleA().result()).toEqual({ runs: 0, suppressed: 0 });
    expect(await runsOf(tenantId, agentId)).toHaveLength(5);
  });

  it('does nothing for an inactive agent, whether the dispatcher or the activity finds it inactive', async () => {
    const { tenantId, agentId } = await machineAgent(10);
    await pg.db('agents').where({ id: agentId }).update({ status: 'inactive' });
    const [event] = await storeEvents(tenantId, 'vibration.threshold_exceeded', {}, 1);
    expect(await signalMachineAgents(pg.db, env.client, [event])).toBe(0);
    // Deactivated after the dispatcher signalled it: the activity skips the event, no cooldown starts.
    await signalMachineAgent(env.client, { tenantId, agentId, assetKey: NO_ASSET, eventId: event.id });
    expect(await env.client.workflow.getHandle(workflowIds.machineAgent(tenantId, agentId, NO_ASSET)).result()).toEqual({ runs: 0, suppressed: 0 });
    expect(await runsOf(tenantId, agentId)).toHaveLength(0);
  });

  it("writes the run with the configured language model, using the agent's system prompt, model and temperature; the built-in engine answers when it fails", async () => {
    const model = await startWebhookReceiver(); // a fake OpenAI-compatible endpoint on loopback
    currentLlm = createOpenAiCompatibleProvider({ baseUrl: model.url('/v1'), apiKey: null, model: 'global-default' });
    try {
      const answer = (content: string) => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'plant-gpt-2', choices: [{ message: { content } }] }),
      });
      model.script('/v1/chat/completions', [answer('Bearing vibration on the pump is above its limit: check lubrication and alignment.'), { status: 503 }]);
      const { tenantId, agentId } = await machineAgent(0, { model: 'plant-gpt-2', temperature: 0.7, system_prompt: 'You watch pumps of line 2.' });
      const assetId = randomUUID();
      await signalMachineAgents(pg.db, env.client, await storeEvents(tenantId, 'vibration.threshold_exceeded', { asset_id: assetId, rms_mm_s: 11.2 }, 1));
      const [run] = await until(
        () => pg.db('machine_agent_runs').where({ tenant_id: tenantId, agent_id: agentId }).select('engine', 'reply_text', 'notification_id'),
        (r) => r.length === 1,
        'the run',
      );
      expect(run).toMatchObject({ engine: 'openai-compatible', reply_text: 'Bearing vibration on the pump is above its limit: check lubrication and alignment.' });
      const sent = JSON.parse(model.on('/v1/chat/completions')[0].body);
      expect(sent).toMatchObject({ model: 'plant-gpt-2', temperature: 0.7 });
      expect(sent.messages[0]).toEqual({ role: 'system', content: expect.stringMatching(/^You watch pumps of line 2\./) });
      expect(sent.messages[1].content).toBe(`Event vibration.threshold_exceeded on asset ${assetId}: rms_mm_s=11.2, seq=0.`);
      const notification = await until(
        () => pg.db('notifications').where({ id: run.notification_id }).first('body'),
        (n) => n !== undefined,
        'the notification',
      );
      expect(notification.body).toBe(run.reply_text);

      // The model fails (503): the run is still recorded, by the built-in engine, labelled as such.
      await signalMachineAgents(pg.db, env.client, await storeEvents(tenantId, 'vibration.threshold_exceeded', { asset_id: assetId }, 1));
      const runs = await until(
        () => pg.db('machine_agent_runs').where({ tenant_id: tenantId, agent_id: agentId }).orderBy('created_at').select('engine', 'reply_text'),
        (r) => r.length === 2,
        'the second run',
      );
      expect(runs[1]).toMatchObject({ engine: 'built-in', reply_text: expect.stringMatching(/^\[built-in engine\]/) });

      // Agents the built-in engine answers without asking the provider: a built-in model, and a
      // model its tenant's plan does not include (stored before the allow-list, or before the plan went down).
      const calls = model.on('/v1/chat/completions').length;
      for (const agent of [await machineAgent(0), await machineAgent(0, { model: 'plant-gpt-2' }, 'starter')]) {
        await signalMachineAgents(pg.db, env.client, await storeEvents(agent.tenantId, 'vibration.threshold_exceeded', {}, 1));
        await until(
          () => pg.db('machine_agent_runs').where({ agent_id: agent.agentId }).select('engine'),
          (r) => r.length === 1 && r[0].engine === 'built-in',
          'the built-in run',
        );
      }
      expect(model.on('/v1/chat/completions')).toHaveLength(calls);
    } finally {
      currentLlm = null;
      await model.close();
    }
  });
});
