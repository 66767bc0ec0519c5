import { randomUUID } from 'node:crypto';
import { openSurveyInvitation, recordReplyScore } from '../../db/queries/csat';
import { tenantScope } from '../../db/tenant-scope';
import { createTenant, createUser, expectError, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
let t: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  [t, other] = await Promise.all([createTenant(api), createTenant(api)]);
});
afterAll(() => api.close());

const DAY = 24 * 3600 * 1000;

/** A machine agent (the simplest valid agent row) of the tenant. */
async function seedAgent(tenantId: string): Promise<string> {
  const [row] = await api.deps
    .db('agents')
    .insert({
      tenant_id: tenantId,
      name: `Agent ${randomUUID().slice(0, 6)}`,
      type: 'machine',
      system_prompt: 'Help.',
      model: 'built-in',
      temperature: 0.2,
      trigger_config: JSON.stringify({ event_types: ['asset.alert.raised'] }),
    })
    .returning('id');
  return row.id;
}

async function seedConversation(tenantId: string, agentId: string, channel: 'whatsapp' | 'email' = 'whatsapp'): Promise<{ conversationId: string; contactId: string }> {
  const [contact] = await api.deps
    .db('contacts')
    .insert({ tenant_id: tenantId, email: `c-${randomUUID()}@example.com` })
    .returning('id');
  const [conversation] = await api.deps
    .db('conversations')
    .insert({ tenant_id: tenantId, agent_id: agentId, contact_id: contact.id, channel, status: 'closed', closed_at: new Date() })
    .returning('id');
  return { conversationId: conversation.id, contactId: contact.id };
}

async function createSurvey(tenant: TestTenant, body: Record<string, unknown>) {
  const res = await api.request('/api/v1/csat/surveys', {
    method: 'POST',
    token: tenant.token,
    json: { name: `Survey ${randomUUID().slice(0, 6)}`, question: 'How did we do?', ...body },
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe('surveys', () => {
  it('creates, reads, updates, lists and deletes surveys, validating scale, channels and agent', async () => {
    const created = await createSurvey(t, { name: 'After support', scale: 'csat_5' });
    expect(created).toEqual({
      id: expect.any(String),
      name: 'After support',
      question: 'How did we do?',
      scale: 'csat_5',
      channels: ['whatsapp', 'email'],
      agent_id: null,
      status: 'active',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await api.request(`/api/v1/csat/surveys/${created.id}`, { token: t.token })).body).toEqual(created);
    const updated = await api.request(`/api/v1/csat/surveys/${created.id}`, { method: 'PUT', token: t.token, json: { channels: ['email'], status: 'inactive' } });
    expect(updated.body).toMatchObject({ channels: ['email'], status: 'inactive', scale: 'csat_5' });
    const list = await api.request('/api/v1/csat/surveys?status=inactive&limit=100', { token: t.token });
    expect(list.body.items.map((s: { id: string }) => s.id)).toContain(created.id);

    for (const body of [
      { scale: 'stars_7' },
      { scale: 'csat_5', channels: ['sms'] },
      { scale: 'csat_5', channels: ['email', 'email'] },
      { scale: 'nps_10', agent_id: randomUUID() },
    ]) {
      expectError(await api.request('/api/v1/csat/surveys', { method: 'POST', token: t.token, json: { name: 'x', question: 'q?', ...body } }), 422, 'VALIDATION_ERROR');
    }
    expect((await api.request(`/api/v1/csat/surveys/${created.id}`, { method: 'DELETE', token: t.token })).status).toBe(204);
    expectError(await api.request(`/api/v1/csat/surveys/${created.id}`, { token: t.token }), 404, 'NOT_FOUND');
  });

  it('keeps a survey with responses: delete and a scale change are 409', async () => {
    const survey = await createSurvey(t, { scale: 'csat_5' });
    expect((await api.request('/api/v1/csat/responses', { method: 'POST', token: t.token, json: { survey_id: survey.id, score: 4 } })).status).toBe(201);
    expectError(await api.request(`/api/v1/csat/surveys/${survey.id}`, { method: 'DELETE', token: t.token }), 409, 'CONFLICT');
    expectError(await api.request(`/api/v1/csat/surveys/${survey.id}`, { method: 'PUT', token: t.token, json: { scale: 'nps_10' } }), 409, 'CONFLICT');
  });
});

describe('responses', () => {
  it('records a response on the scale, filling contact and agent from the conversation, and emits csat.response.received', async () => {
    const agentId = await seedAgent(t.tenantId);
    const { conversationId, contactId } = await seedConversation(t.tenantId, agentId);
    const survey = await createSurvey(t, { scale: 'nps_10' });
    const res = await api.request('/api/v1/csat/responses', {
      method: 'POST',
      token: t.token,
      json: { survey_id: survey.id, score: 0, comment: 'Too slow', conversation_id: conversationId },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      survey_id: survey.id,
      conversation_id: conversationId,
      contact_id: contactId,
      agent_id: agentId,
      score: 0,
      comment: 'Too slow',
      responded_at: expect.any(String),
      created_at: expect.any(String),
    });
    const event = await api.deps
      .db('outbox_events')
      .where({ tenant_id: t.tenantId, type: 'csat.response.received' })
      .whereRaw(`data->>'response_id' = ?`, [res.body.id])
      .first('data');
    expect(event.data).toEqual({ response_id: res.body.id, survey_id: survey.id, conversation_id: conversationId, agent_id: agentId });

    const csat = await createSurvey(t, { scale: 'csat_5' });
    const offScale = await api.request('/api/v1/csat/responses', { method: 'POST', token: t.token, json: { survey_id: csat.id, score: 0 } });
    expectError(offScale, 422, 'VALIDATION_ERROR');
    expect(offScale.body.detail).toBe('score must be between 1 and 5 on a csat_5 survey');
    expectError(await api.request('/api/v1/csat/responses', { method: 'POST', token: t.token, json: { survey_id: csat.id, score: 6 } }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/csat/responses', { method: 'POST', token: t.token, json: { survey_id: randomUUID(), score: 3 } }), 422, 'VALIDATION_ERROR');
    expectError(
      await api.request('/api/v1/csat/responses', { method: 'POST', token: t.token, json: { survey_id: csat.id, score: 3, conversation_id: randomUUID() } }),
      422,
      'VALIDATION_ERROR',
    );

    const byAgent = await api.request(`/api/v1/csat/responses?agent_id=${agentId}`, { token: t.token });
    expect(byAgent.body).toMatchObject({ total: 1, items: [{ id: res.body.id }] });
    const bySurvey = await api.request(`/api/v1/csat/responses?survey_id=${csat.id}`, { token: t.token });
    expect(bySurvey.body.total).toBe(0);
  });
});

describe('aggregates', () => {
  it('computes CSAT %, NPS, per agent and per UTC day on known responses', async () => {
    const tenant = await createTenant(api);
    const [agentA, agentB] = [await seedAgent(tenant.tenantId), await seedAgent(tenant.tenantId)];
    const convA = await seedConversation(tenant.tenantId, agentA);
    const convB = await seedConversation(tenant.tenantId, agentB);
    const csat = await createSurvey(tenant, { scale: 'csat_5' });
    const nps = await createSurvey(tenant, { scale: 'nps_10' });
    // Day 1 ends at 2026-03-01T23:59:59Z; 23:30Z and 00:30Z fall on different UTC days.
    const day1 = '2026-03-01T23:30:00.000Z';
    const day2 = '2026-03-02T00:30:00.000Z';
    const responses: Array<[string, number, { conversationId: string }, string]> = [
      [csat.id, 5, convA, day1],
      [csat.id, 4, convA, day1],
      [csat.id, 3, convA, day2],
      [csat.id, 2, convB, day2],
      [csat.id, 5, convB, day2],
      [nps.id, 10, convA, day1],
      [nps.id, 9, convA, day2],
      [nps.id, 8, convB, day1],
      [nps.id, 6, convB, day2],
      [nps.id, 0, convB, day2],
    ];
    for (const [surveyId, score, conv, at] of responses) {
      const res = await api.request('/api/v1/csat/responses', {
        method: 'POST',
        token: tenant.token,
        json: { survey_id: surveyId, score, conversation_id: conv.conversationId, responded_at: at },
      });
      expect(res.status).toBe(201);
    }
    const period = 'from=2026-03-01T00:00:00Z&to=2026-03-03T00:00:00Z';
    const all = await api.request(`/api/v1/csat/aggregates?${period}`, { token: tenant.token });
    expect(all.status).toBe(200);
    const perAgent = [
      { agent_id: agentA, response_count: 5, csat_percent: 66.7, nps: 100 }, // csat 5,4,3; nps 10,9
      { agent_id: agentB, response_count: 5, csat_percent: 50, nps: -66.7 }, // csat 2,5; nps 8,6,0
    ].sort((x, y) => (x.agent_id < y.agent_id ? -1 : 1));
    expect(all.body).toEqual({
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-03T00:00:00.000Z',
      survey_id: null,
      response_count: 10,
      csat_percent: 60, // 5,4,3,2,5
      nps: 0, // 10,9,8,6,0
      per_agent: perAgent,
      per_day: [
        { date: '2026-03-01', response_count: 4, csat_percent: 100, nps: 50 }, // csat 5,4; nps 10,8
        { date: '2026-03-02', response_count: 6, csat_percent: 33.3, nps: -33.3 }, // csat 3,2,5; nps 9,6,0
      ],
    });

    const onlyCsat = await api.request(`/api/v1/csat/aggregates?${period}&survey_id=${csat.id}`, { token: tenant.token });
    expect(onlyCsat.body).toMatchObject({ survey_id: csat.id, response_count: 5, csat_percent: 60, nps: null });
    const day2Only = await api.request('/api/v1/csat/aggregates?from=2026-03-02T00:00:00Z&to=2026-03-03T00:00:00Z', { token: tenant.token });
    expect(day2Only.body).toMatchObject({ response_count: 6, csat_percent: 33.3, nps: -33.3, per_day: [{ date: '2026-03-02' }] });
    expectError(await api.request('/api/v1/csat/aggregates?from=2026-03-03T00:00:00Z&to=2026-03-01T00:00:00Z', { token: tenant.token }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/csat/aggregates?from=2024-01-01T00:00:00Z&to=2026-03-01T00:00:00Z', { token: tenant.token }), 422, 'VALIDATION_ERROR');

    const listed = await api.request(`/api/v1/csat/responses?from=2026-03-02T00:00:00Z&to=2026-03-03T00:00:00Z&agent_id=${agentA}`, { token: tenant.token });
    expect(listed.body.items.map((r: { score: number }) => r.score).sort((a: number, b: number) => a - b)).toEqual([3, 9]); // same instant: order by id

    // Another tenant sees none of it.
    const theirs = await api.request(`/api/v1/csat/aggregates?${period}`, { token: other.token });
    expect(theirs.body).toMatchObject({ response_count: 0, csat_percent: null, nps: null, per_agent: [], per_day: [] });
  });
});

describe('invitations after a conversation and score replies (openSurveyInvitation, recordReplyScore)', () => {
  it("picks the agent's own survey over a general one, once per conversation, on the survey's channels", async () => {
    const tenant = await createTenant(api);
    const scope = tenantScope(api.deps.db, tenant.tenantId);
    const [agentX, agentY] = [await seedAgent(tenant.tenantId), await seedAgent(tenant.tenantId)];
    await createSurvey(tenant, { question: 'How satisfied are you?', scale: 'csat_5', channels: ['whatsapp'] });
    await createSurvey(tenant, { question: 'Would you recommend us?', scale: 'nps_10', channels: ['whatsapp'], agent_id: agentX });
    await createSurvey(tenant, { question: 'Inactive', scale: 'nps_10', channels: ['email'], status: 'inactive' });
    const now = new Date();

    const x = await seedConversation(tenant.tenantId, agentX);
    const opened = await openSurveyInvitation(scope, { conversationId: x.conversationId, agentId: agentX, contactId: x.contactId, channel: 'whatsapp', now });
    expect(opened).toEqual({ invitationId: expect.any(String), text: 'Would you recommend us?\nPlease reply with a number from 0 to 10 (you may add a comment after it).' });
    expect(await openSurveyInvitation(scope, { conversationId: x.conversationId, agentId: agentX, contactId: x.contactId, channel: 'whatsapp', now })).toBeNull();
    const row = await api.deps.db('csat_invitations').where({ id: opened!.invitationId }).first();
    expect(row).toMatchObject({ tenant_id: tenant.tenantId, conversation_id: x.conversationId, contact_id: x.contactId, agent_id: agentX, channel: 'whatsapp', status: 'pending' });
    expect(row.expires_at.getTime() - row.sent_at.getTime()).toBe(7 * DAY);

    const y = await seedConversation(tenant.tenantId, agentY);
    const general = await openSurveyInvitation(scope, { conversationId: y.conversationId, agentId: agentY, contactId: y.contactId, channel: 'whatsapp', now });
    expect(general?.text).toBe('How satisfied are you?\nPlease reply with a number from 1 to 5 (you may add a comment after it).');

    // Only the inactive survey is offered on email: nothing to send.
    const mail = await seedConversation(tenant.tenantId, agentY, 'email');
    expect(await openSurveyInvitation(scope, { conversationId: mail.conversationId, agentId: agentY, contactId: mail.contactId, channel: 'email', now })).toBeNull();
    // Another tenant's scope finds no survey.
    expect(
      await openSurveyInvitation(tenantScope(api.deps.db, other.tenantId), { conversationId: x.conversationId, agentId: agentX, contactId: x.contactId, channel: 'whatsapp', now }),
    ).toBeNull();
  });

  it('stores a score reply once, linked to the conversation, contact and agent; other messages, channels, expired invitations and other tenants are ordinary messages', async () => {
    const tenant = await createTenant(api);
    const scope = tenantScope(api.deps.db, tenant.tenantId);
    const agent = await seedAgent(tenant.tenantId);
    await createSurvey(tenant, { scale: 'csat_5', channels: ['whatsapp'] });
    const sentAt = new Date(Date.now() - DAY);
    const c = await seedConversation(tenant.tenantId, agent);
    const invitation = await openSurveyInvitation(scope, { conversationId: c.conversationId, agentId: agent, contactId: c.contactId, channel: 'whatsapp', now: sentAt });
    expect(invitation).not.toBeNull();
    const reply = (body: string, extra: Partial<{ channel: 'whatsapp' | 'email'; now: Date; contactId: string }> = {}, s = scope) =>
      recordReplyScore(s, { contactId: c.contactId, channel: 'whatsapp', body, now: new Date(), ...extra });

    expect(await reply('When will the technician come?')).toBeNull();
    expect(await reply('7')).toBeNull(); // not on the 1..5 scale
    expect(await reply('4', { channel: 'email' })).toBeNull();
    expect(await reply('4', { now: new Date(sentAt.getTime() + 7 * DAY + 1000) })).toBeNull(); // expired
    expect(await reply('4', {}, tenantScope(api.deps.db, other.tenantId))).toBeNull();

    const answeredAt = new Date();
    const stored = await reply('4 - quick fix, thanks', { now: answeredAt });
    expect(stored).toEqual({ responseId: expect.any(String) });
    const response = await api.deps.db('csat_responses').where({ id: stored!.responseId }).first();
    expect(response).toMatchObject({
      tenant_id: tenant.tenantId,
      conversation_id: c.conversationId,
      contact_id: c.contactId,
      agent_id: agent,
      score: 4,
      comment: 'quick fix, thanks',
      invitation_id: invitation!.invitationId,
    });
    expect(response.responded_at.getTime()).toBe(answeredAt.getTime());
    expect(await api.deps.db('csat_invitations').where({ id: invitation!.invitationId }).first('status')).toEqual({ status: 'answered' });
    const events = await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId, type: 'csat.response.received' }).select('data');
    expect(events.map((e) => e.data)).toEqual([{ response_id: stored!.responseId, survey_id: response.survey_id, conversation_id: c.conversationId, agent_id: agent }]);

    // Answered: a second number is an ordinary message.
    expect(await reply('5')).toBeNull();
    const listed = await api.request('/api/v1/csat/responses', { token: tenant.token });
    expect(listed.body).toMatchObject({ total: 1, items: [{ id: stored!.responseId, score: 4 }] });
  });
});

describe('tenant isolation and permissions', () => {
  it("answers 404 for another tenant's surveys on every route and never lists them", async () => {
    const survey = await createSurvey(t, { scale: 'csat_5' });
    const tok = other.token;
    expectError(await api.request(`/api/v1/csat/surveys/${survey.id}`, { token: tok }), 404, 'NOT_FOUND');
    expectError(await api.request(`/api/v1/csat/surveys/${survey.id}`, { method: 'PUT', token: tok, json: { name: 'mine' } }), 404, 'NOT_FOUND');
    expectError(await api.request(`/api/v1/csat/surveys/${survey.id}`, { method: 'DELETE', token: tok }), 404, 'NOT_FOUND');
    expectError(await api.request('/api/v1/csat/surveys/not-a-uuid', { token: tok }), 404, 'NOT_FOUND');
    expectError(await api.request('/api/v1/csat/responses', { method: 'POST', token: tok, json: { survey_id: survey.id, score: 5 } }), 422, 'VALIDATION_ERROR');
    const agentOfT = await seedAgent(t.tenantId);
    const convOfT = await seedConversation(t.tenantId, agentOfT);
    const ownSurvey = await createSurvey(other, { scale: 'csat_5' });
    expectError(
      await api.request('/api/v1/csat/responses', { method: 'POST', token: tok, json: { survey_id: ownSurvey.id, score: 5, conversation_id: convOfT.conversationId } }),
      422,
      'VALIDATION_ERROR',
    );
    expectError(
      await api.request('/api/v1/csat/surveys', { method: 'POST', token: tok, json: { name: 'x', question: 'q?', scale: 'csat_5', agent_id: agentOfT } }),
      422,
      'VALIDATION_ERROR',
    );

    const surveys = await api.request('/api/v1/csat/surveys?limit=100', { token: tok });
    expect(surveys.body.items.map((s: { id: string }) => s.id)).toEqual([ownSurvey.id]);
    const responses = await api.request('/api/v1/csat/responses?limit=100', { token: tok });
    expect(responses.body.total).toBe(0);
    expect((await api.request(`/api/v1/csat/responses?survey_id=${survey.id}`, { token: tok })).body.total).toBe(0);
  });

  it('lets a viewer read but not manage', async () => {
    const viewer = await createUser(api, t.tenantId, 'viewer');
    expect((await api.request('/api/v1/csat/surveys', { token: viewer.token })).status).toBe(200);
    expect((await api.request('/api/v1/csat/aggregates', { token: viewer.token })).status).toBe(200);
    expectError(await api.request('/api/v1/csat/surveys', { method: 'POST', token: viewer.token, json: { name: 'x', question: 'q?', scale: 'csat_5' } }), 403, 'FORBIDDEN');
  });
});
