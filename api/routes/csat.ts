import Joi from '../../domain/joi';
import type { Schema } from 'joi';
import { csatTallies, CsatResponseRow, CsatSurveyRow, insertResponse, RESPONSE_COLUMNS, responseEvent, SURVEY_COLUMNS, surveyById } from '../../db/queries/csat';
import { isUuid, TenantScope } from '../../db/tenant-scope';
import { aggregateTallies } from '../../domain/csat/aggregates';
import { CSAT_CHANNELS, CSAT_SCALES, CsatChannel, CsatScale, isScoreOnScale, SCALE_RANGE } from '../../domain/csat/scale';
import { tenantScopeOf, userOf } from '../context';
import { AppError, conflict, validationError } from '../../domain/errors';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, pageOf } from '../pagination';
import { paginate, PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { idRef } from '../validation';
import { findOr404 } from '../../db/find-or-404';
import { resourceRoutes } from '../resource-routes';

const DAY_MS = 24 * 3600 * 1000;
/** Aggregates without `from` cover the last 30 days; a period is at most 366 days (per_day stays small). */
const DEFAULT_PERIOD_DAYS = 30;
const MAX_PERIOD_DAYS = 366;

const surveySchema = Joi.object({
  id: Joi.string().uuid(),
  name: Joi.string(),
  question: Joi.string(),
  scale: Joi.string()
    .valid(...CSAT_SCALES)
    .description('csat_5: 1..5; nps_10: 0..10'),
  channels: Joi.array().items(Joi.string().valid(...CSAT_CHANNELS)),
  agent_id: Joi.string().uuid().allow(null).description('null: every agent'),
  status: Joi.string().valid('active', 'inactive'),
  created_at: Joi.string().isoDate(),
  updated_at: Joi.string().isoDate(),
});
const responseSchema = Joi.object({
  id: Joi.string().uuid(),
  survey_id: Joi.string().uuid(),
  conversation_id: Joi.string().uuid().allow(null),
  contact_id: Joi.string().uuid().allow(null),
  agent_id: Joi.string().uuid().allow(null),
  score: Joi.number().integer(),
  comment: Joi.string().allow(null),
  responded_at: Joi.string().isoDate(),
  created_at: Joi.string().isoDate(),
});
const summary = { response_count: Joi.number().integer(), csat_percent: Joi.number().allow(null), nps: Joi.number().allow(null) };
const aggregatesSchema = Joi.object({
  from: Joi.string().isoDate(),
  to: Joi.string().isoDate(),
  survey_id: Joi.string().uuid().allow(null),
  ...summary,
  per_agent: Joi.array().items(Joi.object({ agent_id: Joi.string().uuid().allow(null), ...summary })),
  per_day: Joi.array().items(Joi.object({ date: Joi.string().description('UTC day, YYYY-MM-DD'), ...summary })),
});
const page = (item: Schema) => pageOf(item);

const toSurvey = (row: CsatSurveyRow) => ({ ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() });
const toResponse = (row: CsatResponseRow) => ({ ...row, responded_at: row.responded_at.toISOString(), created_at: row.created_at.toISOString() });

const surveyFields = {
  name: Joi.string().trim().min(1).max(200),
  question: Joi.string().trim().min(1).max(1000),
  scale: Joi.string().valid(...CSAT_SCALES),
  channels: Joi.array()
    .items(Joi.string().valid(...CSAT_CHANNELS))
    .unique()
    .max(CSAT_CHANNELS.length),
  agent_id: idRef.allow(null),
  status: Joi.string().valid('active', 'inactive'),
};
type SurveyBody = { name?: string; question?: string; scale?: CsatScale; channels?: CsatChannel[]; agent_id?: string | null; status?: 'active' | 'inactive' };

function requireSurvey(scope: TenantScope, id: string): Promise<CsatSurveyRow> {
  return findOr404('survey', id, () => surveyById(scope, id));
}

const unknownReference = (field: string, what: string) =>
  validationError(`${field} does not name ${what} of this tenant`, [{ field: `body.${field}`, message: `unknown ${what}`, type: 'any.unknown_reference' }]);

async function requireAgentRef(scope: TenantScope, agentId: string | null | undefined): Promise<void> {
  if (agentId && !(isUuid(agentId) && (await scope.table('agents').where('id', agentId).first('id')))) throw unknownReference('agent_id', 'an agent');
}

const surveyColumns = (body: SurveyBody) => ({ ...body, ...(body.channels ? { channels: body.channels } : {}) });

/** `from`/`to` of a period: to defaults to now, from to 30 days before `to`. */
function period(query: { from?: Date; to?: Date }, now: Date): { from: Date; to: Date } {
  const to = query.to ?? now;
  const from = query.from ?? new Date(to.getTime() - DEFAULT_PERIOD_DAYS * DAY_MS);
  if (from >= to) throw validationError('from must be before to', [{ field: 'query.from', message: 'must be before to', type: 'date.max' }]);
  if (to.getTime() - from.getTime() > MAX_PERIOD_DAYS * DAY_MS) {
    throw validationError(`the period is at most ${MAX_PERIOD_DAYS} days`, [{ field: 'query.from', message: `at most ${MAX_PERIOD_DAYS} days before to`, type: 'date.min' }]);
  }
  return { from, to };
}

export function csatRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/csat');

  // ---- surveys
  const survey = resourceRoutes(api, {
    path: '/surveys/:survey_id',
    tags: ['csat'],
    view: 'view_csat',
    schema: surveySchema,
    find: requireSurvey,
    present: toSurvey,
    write: { permission: 'manage_csat', audit: 'csat.survey', resourceType: 'csat_survey', table: 'csat_surveys', columns: SURVEY_COLUMNS },
  });
  survey.list<{ status?: string; scale?: string }>({
    summary: 'List CSAT surveys',
    found: 'A page of surveys',
    query: { status: surveyFields.status, scale: surveyFields.scale },
    filter: (q, query) => {
      if (query.status) q.where('status', query.status);
      if (query.scale) q.where('scale', query.scale);
    },
  });
  survey.create<SurveyBody>(
    {
      summary: 'Create a CSAT survey',
      description: "Sent after a conversation on one of `channels` closes, for `agent_id` (null: every agent). An agent's own active survey wins over a general one.",
      body: Joi.object({
        ...surveyFields,
        name: surveyFields.name.required(),
        question: surveyFields.question.required(),
        scale: surveyFields.scale.required(),
        channels: surveyFields.channels.default(['whatsapp', 'email']),
        status: surveyFields.status.default('active'),
      }),
      created: 'Created survey',
    },
    { check: (unit, body) => requireAgentRef(unit.scope, body.agent_id), columns: surveyColumns },
  );
  const hasResponses = async (scope: TenantScope, survey: CsatSurveyRow) => Boolean(await scope.table('csat_responses').where('survey_id', survey.id).first('id'));
  survey.get({ summary: 'Get a CSAT survey', found: 'Survey' });
  survey.update<SurveyBody>(
    {
      summary: 'Update the fields sent; the scale of a survey with responses cannot change',
      body: Joi.object(surveyFields).min(1),
      updated: 'Updated survey',
      responses: { 409: { description: 'Scale change with responses' } },
    },
    {
      check: async (unit, before, body) => {
        await requireAgentRef(unit.scope, body.agent_id);
        if (body.scale && body.scale !== before.scale && (await hasResponses(unit.scope, before))) {
          throw conflict('the survey has responses on its scale; create a new survey instead');
        }
      },
      columns: surveyColumns,
    },
  );
  survey.remove(
    { summary: 'Delete a survey without responses (one with responses is deactivated instead: 409)', responses: { 409: { description: 'The survey has responses' } } },
    {
      before: async (unit, row) => {
        if (await hasResponses(unit.scope, row)) throw conflict('the survey has responses: set its status to inactive instead');
      },
    },
  );

  // ---- responses
  api.route<unknown, unknown, { survey_id: string; score: number; comment?: string | null; conversation_id?: string; responded_at?: Date }>({
    method: 'post',
    path: '/responses',
    summary: 'Record a survey response (integrations)',
    description: "The score must be on the survey's scale (csat_5: 1..5, nps_10: 0..10). With `conversation_id`, the contact and agent come from the conversation.",
    tags: ['csat'],
    auth: 'user',
    permission: 'manage_csat',
    body: Joi.object({
      survey_id: idRef.required(),
      score: Joi.number().integer().min(0).max(10).required(),
      comment: Joi.string().trim().max(2000).allow(null, ''),
      conversation_id: idRef,
      responded_at: Joi.date().iso().max('now'),
    }),
    responses: { 201: { description: 'Recorded response', schema: responseSchema }, 422: { description: 'Unknown survey or conversation, or score off the scale' } },
    handler: async (ctx, { body }) => {
      const { tenantId } = userOf(ctx);
      const created = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const survey = isUuid(body.survey_id) ? await surveyById(unit.scope, body.survey_id) : undefined;
        if (!survey) throw unknownReference('survey_id', 'a survey');
        if (!isScoreOnScale(body.score, survey.scale)) {
          const { min, max } = SCALE_RANGE[survey.scale];
          throw new AppError('VALIDATION_ERROR', `score must be between ${min} and ${max} on a ${survey.scale} survey`, {
            fields: [{ field: 'body.score', message: `must be between ${min} and ${max}`, type: 'number.range' }],
          });
        }
        let conversation: { id: string; contact_id: string; agent_id: string } | undefined;
        if (body.conversation_id) {
          conversation = isUuid(body.conversation_id) ? await unit.scope.table('conversations').where('id', body.conversation_id).first('id', 'contact_id', 'agent_id') : undefined;
          if (!conversation) throw unknownReference('conversation_id', 'a conversation');
        }
        const row = await insertResponse(unit.scope, {
          surveyId: survey.id,
          score: body.score,
          comment: body.comment || null,
          respondedAt: body.responded_at ?? new Date(),
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
      });
      ctx.status = 201;
      ctx.body = toResponse(created);
    },
  });

  api.route<unknown, PageRequest & { survey_id?: string; agent_id?: string; from?: Date; to?: Date }>({
    method: 'get',
    path: '/responses',
    summary: 'List survey responses',
    description: '`from` (inclusive) and `to` (exclusive) bound `responded_at`.',
    tags: ['csat'],
    auth: 'user',
    permission: 'view_csat',
    query: Joi.object({ ...pageQuery, survey_id: idRef, agent_id: idRef, from: Joi.date().iso(), to: Joi.date().iso() }),
    responses: { 200: { description: 'A page of responses', schema: page(responseSchema) } },
    handler: async (ctx, { query }) => {
      const q = tenantScopeOf(ctx)
        .table('csat_responses')
        .select([...RESPONSE_COLUMNS])
        .orderBy([{ column: 'responded_at' }, { column: 'id' }]);
      for (const column of ['survey_id', 'agent_id'] as const) {
        const value = query[column];
        if (value === undefined) continue;
        if (isUuid(value)) q.where(column, value);
        else q.whereRaw('false');
      }
      if (query.from) q.where('responded_at', '>=', query.from);
      if (query.to) q.where('responded_at', '<', query.to);
      ctx.body = await paginate(q, query, toResponse);
    },
  });

  api.route<unknown, { from?: Date; to?: Date; survey_id?: string }>({
    method: 'get',
    path: '/aggregates',
    summary: 'CSAT %, NPS and response counts over a period, per agent and per UTC day',
    description:
      'CSAT % = share of csat_5 responses scoring 4 or 5; NPS = % promoters (9-10) - % detractors (0-6) of nps_10 responses; ' +
      'both rounded to one decimal, null without responses. Period: `from` inclusive, `to` exclusive (default: the 30 days before now; at most 366 days). ' +
      '`per_day` lists the UTC days with responses.',
    tags: ['csat'],
    auth: 'user',
    permission: 'view_csat',
    query: Joi.object({ from: Joi.date().iso(), to: Joi.date().iso(), survey_id: idRef }),
    responses: { 200: { description: 'Aggregates', schema: aggregatesSchema } },
    handler: async (ctx, { query }) => {
      const { from, to } = period(query, new Date());
      const tallies = await csatTallies(tenantScopeOf(ctx), { from, to, surveyId: query.survey_id });
      ctx.body = { from: from.toISOString(), to: to.toISOString(), survey_id: query.survey_id ?? null, ...aggregateTallies(tallies) };
    },
  });

  return api;
}
