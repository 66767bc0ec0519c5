/**
 * CSAT storage (issue 8): surveys, invitations sent when a conversation closes, and responses.
 * `openSurveyInvitation` and `recordReplyScore` are the contract with the conversation flow
 * (notes/SESSION2_CONTRACT.md): CONV calls the first when it closes a conversation and the second
 * on every inbound message before the agent sees it.
 */
import type { Knex } from 'knex';
import { appendEvent } from '../outbox';
import { redactPii, AUTO_REDACT_TYPES } from '../../domain/privacy/pii';
import { CsatChannel, CsatScale, invitationText } from '../../domain/csat/scale';
import { parseScoreReply } from '../../domain/csat/reply';
import type { GroupedTally } from '../../domain/csat/aggregates';
import { TenantScope, whereUuidIs } from '../tenant-scope';
import { piiAutoRedact } from './conversations';
import { listQuery, whereUuidFilters } from './list-query';

/** How long a contact may answer a survey after it was sent. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

export interface CsatSurveyRow {
  id: string;
  name: string;
  question: string;
  scale: CsatScale;
  channels: CsatChannel[];
  agent_id: string | null;
  status: 'active' | 'inactive';
  created_at: Date;
  updated_at: Date;
}
export const SURVEY_COLUMNS = ['id', 'name', 'question', 'scale', 'channels', 'agent_id', 'status', 'created_at', 'updated_at'] as const;

export interface CsatResponseRow {
  id: string;
  survey_id: string;
  conversation_id: string | null;
  contact_id: string | null;
  agent_id: string | null;
  score: number;
  comment: string | null;
  responded_at: Date;
  created_at: Date;
}
export const RESPONSE_COLUMNS = ['id', 'survey_id', 'conversation_id', 'contact_id', 'agent_id', 'score', 'comment', 'responded_at', 'created_at'] as const;

export const surveyById = (scope: TenantScope, id: string): Promise<CsatSurveyRow | undefined> =>
  scope
    .table('csat_surveys')
    .where('id', id)
    .first([...SURVEY_COLUMNS]);

/** The outbox event of a stored response: ids only. */
export const responseEvent = (row: CsatResponseRow) => ({
  type: 'csat.response.received',
  data: { response_id: row.id, survey_id: row.survey_id, conversation_id: row.conversation_id, agent_id: row.agent_id },
});

/**
 * Stores a response. The comment is free text from the contact: redacted like message bodies when
 * the tenant turned `pii.auto_redact` on.
 */
export async function insertResponse(
  scope: TenantScope,
  input: {
    surveyId: string;
    score: number;
    comment: string | null;
    respondedAt: Date;
    conversationId?: string | null;
    contactId?: string | null;
    agentId?: string | null;
    invitationId?: string;
  },
): Promise<CsatResponseRow> {
  const comment = input.comment && (await piiAutoRedact(scope)) ? redactPii(input.comment, { types: AUTO_REDACT_TYPES }).text : input.comment;
  const [row] = await scope.insert(
    'csat_responses',
    {
      survey_id: input.surveyId,
      score: input.score,
      comment,
      responded_at: input.respondedAt,
      conversation_id: input.conversationId ?? null,
      contact_id: input.contactId ?? null,
      agent_id: input.agentId ?? null,
      invitation_id: input.invitationId ?? null,
    },
    [...RESPONSE_COLUMNS],
  );
  return row as CsatResponseRow;
}

/**
 * After a conversation closes: the survey that applies (active, offered on the channel, for this
 * agent or for every agent; an agent's own survey wins over a general one, then the newest), stored
 * as a pending invitation that expires after 7 days. Null when no survey applies or the
 * conversation already had one.
 */
export async function openSurveyInvitation(
  scope: TenantScope,
  input: { conversationId: string; agentId: string; contactId: string; channel: 'whatsapp' | 'email'; now: Date },
): Promise<{ invitationId: string; text: string } | null> {
  const survey: Pick<CsatSurveyRow, 'id' | 'question' | 'scale'> | undefined = await scope
    .table('csat_surveys')
    .where('status', 'active')
    .whereRaw('? = any(channels)', [input.channel])
    .where((q) => void q.where('agent_id', input.agentId).orWhereNull('agent_id'))
    .orderByRaw('agent_id is null, created_at desc, id')
    .first('id', 'question', 'scale');
  if (!survey) return null;
  const { rows } = await scope.db.raw(
    `insert into csat_invitations (tenant_id, survey_id, conversation_id, contact_id, agent_id, channel, sent_at, expires_at)
     values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (tenant_id, conversation_id) do nothing
     returning id`,
    [scope.tenantId, survey.id, input.conversationId, input.contactId, input.agentId, input.channel, input.now, new Date(input.now.getTime() + INVITATION_TTL_MS)],
  );
  if (rows.length === 0) return null;
  return { invitationId: rows[0].id, text: invitationText(survey.question, survey.scale) };
}

/**
 * An inbound message from a contact: when the contact has a pending, unexpired invitation on that
 * channel (the newest one) and the body is a score on its survey's scale, the response is stored
 * (linked to the conversation, contact and agent of the invitation), the invitation is answered and
 * `csat.response.received` is emitted, all in one transaction. Null otherwise: the message is then
 * an ordinary message for the agent.
 */
export async function recordReplyScore(
  scope: TenantScope,
  input: { contactId: string; channel: 'whatsapp' | 'email'; body: string; now: Date },
): Promise<{ responseId: string } | null> {
  return scope.db.transaction(async (tx) => {
    const txScope = scope.within(tx);
    const invitation = await txScope
      .table('csat_invitations')
      .join('csat_surveys', 'csat_surveys.id', 'csat_invitations.survey_id')
      .where({ 'csat_invitations.contact_id': input.contactId, 'csat_invitations.channel': input.channel, 'csat_invitations.status': 'pending' })
      .where('csat_invitations.expires_at', '>', input.now)
      .orderBy('csat_invitations.sent_at', 'desc')
      .forUpdate('csat_invitations')
      .first('csat_invitations.id', 'csat_invitations.survey_id', 'csat_invitations.conversation_id', 'csat_invitations.agent_id', 'csat_surveys.scale');
    if (!invitation) return null;
    const reply = parseScoreReply(input.body, invitation.scale);
    if (!reply) return null;
    const response = await insertResponse(txScope, {
      surveyId: invitation.survey_id,
      score: reply.score,
      comment: reply.comment,
      respondedAt: input.now,
      conversationId: invitation.conversation_id,
      contactId: input.contactId,
      agentId: invitation.agent_id,
      invitationId: invitation.id,
    });
    await txScope.table('csat_invitations').where('id', invitation.id).update({ status: 'answered', answered_at: input.now });
    await appendEvent(tx, { tenantId: scope.tenantId, ...responseEvent(response), occurredAt: input.now, source: 'csat' });
    return { responseId: response.id };
  });
}

/**
 * Responses in [from, to) counted per scale, score, agent and UTC day: everything the aggregates
 * (domain/csat/aggregates.ts) are computed from. An ill-formed survey id names no survey.
 */
export async function csatTallies(scope: TenantScope, period: { from: Date; to: Date; surveyId?: string }): Promise<GroupedTally[]> {
  const q = scope
    .table('csat_responses')
    .join('csat_surveys', 'csat_surveys.id', 'csat_responses.survey_id')
    .where('csat_responses.responded_at', '>=', period.from)
    .where('csat_responses.responded_at', '<', period.to)
    .select(
      'csat_surveys.scale',
      'csat_responses.score',
      'csat_responses.agent_id',
      scope.db.raw(`to_char(csat_responses.responded_at at time zone 'UTC', 'YYYY-MM-DD') as day`),
      scope.db.raw('count(*)::int as count'),
    )
    .groupByRaw('1, 2, 3, 4');
  if (period.surveyId !== undefined) whereUuidIs(q, 'csat_responses.survey_id', period.surveyId);
  return (await q) as GroupedTally[];
}

/** Whether the survey has any response (its scale is then fixed, and it cannot be deleted). */
export async function surveyHasResponses(scope: TenantScope, surveyId: string): Promise<boolean> {
  return Boolean(await scope.table('csat_responses').where('survey_id', surveyId).first('id'));
}

export interface ResponseFilter {
  survey_id?: string;
  agent_id?: string;
  /** Inclusive bound of responded_at. */
  from?: Date;
  /** Exclusive bound of responded_at. */
  to?: Date;
}

/** The tenant's responses, oldest first; an id filter that is not a UUID matches nothing. */
export function responseListQuery(scope: TenantScope, filter: ResponseFilter): Knex.QueryBuilder {
  const q = listQuery(scope, 'csat_responses', RESPONSE_COLUMNS, [{ column: 'responded_at' }, { column: 'id' }]);
  whereUuidFilters(q, filter, { survey_id: 'survey_id', agent_id: 'agent_id' });
  if (filter.from) q.where('responded_at', '>=', filter.from);
  if (filter.to) q.where('responded_at', '<', filter.to);
  return q;
}

/** Narrows the tenant's survey list by status and scale. */
export function whereSurveyFilter(q: Knex.QueryBuilder, filter: { status?: string; scale?: string }): void {
  if (filter.status) q.where('status', filter.status);
  if (filter.scale) q.where('scale', filter.scale);
}
