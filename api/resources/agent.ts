import Joi from '../../domain/joi';
import { idRef } from '../validation';

/** The agent path parameter the agents, runs and conversations routes share. */
export const agentParams = Joi.object({ agent_id: idRef.required() });
