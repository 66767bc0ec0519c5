import Joi from '../domain/joi';
import type { Schema } from 'joi';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../db/pagination';

/** The `skip`/`limit` query fields every list endpoint accepts; spread into a route's query schema. */
export const pageQuery = {
  skip: Joi.number().integer().min(0).default(0).description('Number of items to skip'),
  limit: Joi.number().integer().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT).description('Page size, 1..100'),
};

/** The documented shape of a list answer whose items have `item`'s schema. */
export const pageOf = (item: Schema) =>
  Joi.object({
    items: Joi.array().items(item),
    total: Joi.number().integer().min(0),
    skip: Joi.number().integer().min(0),
    limit: Joi.number().integer().min(1).max(MAX_LIMIT),
  });
