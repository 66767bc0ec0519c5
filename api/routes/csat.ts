import Joi from '../../domain/joi';
import type { Schema } from 'joi';
import { CsatResponseRow, CsatSurveyRow, SURVEY_COLUMNS, whereSurveyFilter } from '../../db/queries/csat';
import { CSAT_CHANNELS, CSAT_SCALES } from '../../domain/csat/scale';
import {
  checkSurveyAgent,
  checkSurveyDelete,
  checkSurveyUpdate,
  csatAggregates,
  listResponses,
  recordResponse,
  requireSurvey,
  ResponseFilter,
  ResponseOrder,
  surveyColumns,
  SurveyBody,
} from '../../services/csat';
import { tenantScopeOf, userOf } from '../context';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, pageOf } from '../pagination';
import { mapPage, PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { idRef } from '../validation';
import { resourceRoutes } from '../resource-routes';

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
    filter: whereSurveyFilter,
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
    { check: (unit, body) => checkSurveyAgent(unit.scope, body.agent_id), columns: surveyColumns },
  );
  survey.get({ summary: 'Get a CSAT survey', found: 'Survey' });
  survey.update<SurveyBody>(
    {
      summary: 'Update the fields sent; the scale of a survey with responses cannot change',
      body: Joi.object(surveyFields).min(1),
      updated: 'Updated survey',
      responses: { 409: { description: 'Scale change with responses' } },
    },
    {
      check: (unit, before, body) => checkSurveyUpdate(unit.scope, before, body),
      columns: surveyColumns,
    },
  );
  survey.remove(
    { summary: 'Delete a survey without responses (one with responses is deactivated instead: 409)', responses: { 409: { description: 'The survey has responses' } } },
    { before: (unit, row) => checkSurveyDelete(unit.scope, row) },
  );

  // ---- responses
  api.route<unknown, unknown, ResponseOrder>({
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
      const created = await runMutation(ctx, tenantId, actorOf(ctx), (unit) => recordResponse(unit, body));
      ctx.status = 201;
      ctx.body = toResponse(created);
    },
  });

  api.route<unknown, PageRequest & ResponseFilter>({
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
      ctx.body = mapPage(await listResponses(tenantScopeOf(ctx), query, query), toResponse);
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
      const { from, to, ...aggregates } = await csatAggregates(tenantScopeOf(ctx), query);
      ctx.body = { from: from.toISOString(), to: to.toISOString(), survey_id: query.survey_id ?? null, ...aggregates };
    },
  });

  return api;
}
