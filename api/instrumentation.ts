/**
 * The API process's first import (api/server.ts): tracing starts before koa, pg and the rest are
 * required, so the SDK's instrumentations patch them (infra/tracing.ts).
 */
import { startTracing } from '../infra/tracing';

export const tracing = startTracing('industrial-ops-api');
