/**
 * The worker process's first import (workers/main.ts): tracing starts before pg, nodemailer and
 * the rest are required, so the SDK's instrumentations patch them (infra/tracing.ts).
 */
import { startTracing } from '../infra/tracing';

export const tracing = startTracing('industrial-ops-worker');
