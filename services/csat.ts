/**
 * CSAT surveys, responses and aggregates, without HTTP: reads take the tenant's scope, changes a
 * unit of work (db/unit-of-work.ts); both answer rows. api/routes/csat.ts is the HTTP face.
 */
import { findOr404 } from '../db/find-or-404';
import { csatTallies, CsatResponseRow, CsatSurveyRow, insertResponse, ResponseFilter, responseEvent, responseListQuery, surveyById, surveyHasResponses } from '../db/queries/csat';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { isUuid, type TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { aggregateTallies, type CsatAggregates } from '../domain/csat/aggregates';
import { isScoreOnScale, SCALE_RANGE, type CsatChannel, type CsatScale } from '../domain/csat/scale';
import { AppError, conflict, validationError } from '../domain/errors';

export type { ResponseFilter };

const DAY_MS = 24 * 3600 * 1000;
/** Aggregates without `from` cover the last 30 days; a period is at most 366 days (per_day stays small). */
const DEFAULT_PERIOD_DAYS = 30;
const MAX_PERIOD_DAYS = 366;

export type SurveyBody = { name?: string; question?: string; scale?: CsatScale; channels?: CsatChannel[]; agent_id?: string | null; status?: 'active' | 'inactive' };

export interface ResponseOrder {
  survey_id: string;
  score: number;
  comment?: string | null;
  conversation_id?: string;
  responded_at?: Date;
}

export function requireSurvey(scope: TenantScope, id: string): Promise<CsatSurveyRow> {
  return findOr404('survey', id, () => surveyById(scope, id));
}

const unknownReference = (field: string, what: string) =>
  validationError(`${field} does not name ${what} of this tenant`, [{ field: `body.${field}`, message: `unknown ${what}`, type: 'any.unknown_reference' }]);

/** An agent_id in a survey body must name an agent of the tenant (422). */
export async function checkSurveyAgent(scope: TenantScope, agentId: string | null | undefined): Promise<void> {
  if (agentId && !(isUuid(agentId) && (await scope.table('agents').where('id', agentId).first('id')))) throw unknownReference('agent_id', 'an agent');
}

/** The agent rule, and the scale of a survey with responses cannot change (409). */
export async function checkSurveyUpdate(scope: TenantScope, before: CsatSurveyRow, body: SurveyBody): Promise<void> {
  await checkSurveyAgent(scope, body.agent_id);
  if (body.scale && body.scale !== before.scale && (await surveyHasResponses(scope, before.id))) {
    throw conflict('the survey has responses on its scale; create a new survey instead');
  }
}

/** A survey with responses is deactivated, not deleted (409). */
export async function checkSurveyDelete(scope: TenantScope, survey: CsatSurveyRow): Promise<void> {
  if (await surveyHasResponses(scope, survey.id)) throw conflict('the survey has responses: set its status to inactive instead');
}

export const surveyColumns = (body: SurveyBody) => ({ ...body, ...(body.channels ? { channels: body.channels } : {}) });

/**
 * Records a response on the survey's scale (422 off it); with a conversation, its contact and
 * agent. Emits `csat.response.received` (ids only).
 */
export async function recordResponse(unit: Unit, order: ResponseOrder): Promise<CsatResponseRow> {
  const survey = isUuid(order.survey_id) ? await surveyById(unit.scope, order.survey_id) : undefined;
  if (!survey) throw unknownReference('survey_id', 'a survey');
  if (!isScoreOnScale(order.score, survey.scale)) {
    const { min, max } = SCALE_RANGE[survey.scale];
    throw new AppError('VALIDATION_ERROR', `score must be between ${min} and ${max} on a ${survey.scale} survey`, {
      fields: [{ field: 'body.score', message: `must be between ${min} and ${max}`, type: 'number.range' }],
    });
  }
  let conversation: { id: string; contact_id: string; agent_id: string } | undefined;
  if (order.conversation_id) {
    conversation = isUuid(order.conversation_id) ? await unit.scope.table('conversations').where('id', order.conversation_id).first('id', 'contact_id', 'agent_id') : undefined;
    if (!conversation) throw unknownReference('conversation_id', 'a conversation');
  }
  const row = await insertResponse(unit.scope, {
    surveyId: survey.id,
    score: order.score,
    comment: order.comment || null,
    respondedAt: order.responded_at ?? new Date(),
    conversationId: conversation?.id,
    contactId: conversation?.contact_id,
    agentId: conversation?.agent_id,
  });
  unit.audit({
    action: 'csat.response.recorded',
    resourceType: 'csat_response',
    resourceId: row.id,
    details: { survey_id: survey.id },
    ...(row.contact_id ? { subjectId: row.contact_id } : {}),
  });
  const event = responseEvent(row);
  unit.emit(event.type, event.data);
  return row;
}

export function listResponses(scope: TenantScope, filter: ResponseFilter, page: PageRequest): Promise<Page<CsatResponseRow>> {
  return paginate(responseListQuery(scope, filter), page);
}

/** `from`/`to` of a period: to defaults to now, from to 30 days before `to` (422 when empty or longer than 366 days). */
function period(query: { from?: Date; to?: Date }, now: Date): { from: Date; to: Date } {
  const to = query.to ?? now;
  const from = query.from ?? new Date(to.getTime() - DEFAULT_PERIOD_DAYS * DAY_MS);
  if (from >= to) throw validationError('from must be before to', [{ field: 'query.from', message: 'must be before to', type: 'date.max' }]);
  if (to.getTime() - from.getTime() > MAX_PERIOD_DAYS * DAY_MS) {
    throw validationError(`the period is at most ${MAX_PERIOD_DAYS} days`, [{ field: 'query.from', message: `at most ${MAX_PERIOD_DAYS} days before to`, type: 'date.min' }]);
  }
  return { from, to };
}

/** CSAT %, NPS and counts over the period, per agent and per UTC day. */
export async function csatAggregates(scope: TenantScope, query: { from?: Date; to?: Date; survey_id?: string }): Promise<{ from: Date; to: Date } & CsatAggregates> {
  const { from, to } = period(query, new Date());
  const tallies = await csatTallies(scope, { from, to, surveyId: query.survey_id });
  return { from, to, ...aggregateTallies(tallies) };
}
