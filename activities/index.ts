import { Db } from '../db/knex';
import { ObjectStore } from '../infra/object-store';
import { createConversationActivities } from './conversations';
import { createExtractionActivities } from './extraction/activities';
import { createMachineAgentActivities } from './machine-agents';
import { createMaintenanceActivities } from './maintenance';
import { createNotificationActivities } from './notifications';
import { createPrivacyErasureActivities } from './privacy/erasure';
import { createPrivacyExportActivities } from './privacy/exports';
import { createReportActivities } from './reports';
import { createRetentionActivities } from './privacy/retention';
import { createWebhookDeliveryActivities, LEASE_WAIT_MS } from './webhooks/deliver';
import { createWebhookHealthActivities } from './webhooks/health';
import type { Transporter } from 'nodemailer';
import type { LlmProvider } from '../domain/llm/provider';
import type { PlanModels } from '../domain/tenancy/plans';
import type { OutboundConfig } from '../infra/config';
import type { StartToAttemptTimes } from '../infra/start-to-attempt';
import type { SandboxPool } from '../infra/sandbox/pool';

export interface ActivityDeps {
  db: Db;
  objectStore: ObjectStore;
  mailer: Transporter | null;
  mailFrom: string;
  /** DATA_ENCRYPTION_KEY: decrypts webhook signing secrets. */
  dataEncryptionKey: Buffer;
  /** Development setting WEBHOOK_ALLOW_PRIVATE_DESTINATIONS. */
  allowPrivateWebhookDestinations: boolean;
  /**
   * Starts the delivery workflow of a queued notification (idempotently, by id). Given by the
   * worker (orchestration/notifications.ts): starting workflows is the client side's job, above
   * the activities.
   */
  startNotification: (tenantId: string, notificationId: string) => Promise<void>;
  /** WHATSAPP_API_BASE_URL: conversation replies on WhatsApp. */
  whatsappApiBaseUrl: string;
  /** The configured language model (infra/llm.ts); null: built-in engine. */
  llm: LlmProvider | null;
  /** The models agents may use per plan (LLM_PLAN_MODELS): an agent naming another is answered by the built-in engine. */
  planModels: PlanModels;
  /** The process's sandbox for untrusted files (PDF text, report renders, logos). */
  sandbox: SandboxPool;

  /** Timeouts, tenants' shares of the outbound pools, the webhook circuit breaker. */
  outbound: OutboundConfig;
  /** The process's start-to-attempt times, shared with its outbox dispatcher. */
  startToAttempt?: StartToAttemptTimes;
}

/** Every activity the worker registers, built from real dependencies. */
export function createActivities(deps: ActivityDeps) {
  const { startNotification } = deps;
  return {
    ...createNotificationActivities({ db: deps.db, mailer: deps.mailer, from: deps.mailFrom }),
    ...createWebhookDeliveryActivities({
      db: deps.db,
      dataEncryptionKey: deps.dataEncryptionKey,
      allowPrivateDestinations: deps.allowPrivateWebhookDestinations,
      startNotification,
      startToAttempt: deps.startToAttempt,
      timeoutMs: deps.outbound.webhookResponseTimeoutMs,
      connectTimeoutMs: deps.outbound.webhookConnectTimeoutMs,
      tenantLimits: { maxInFlight: deps.outbound.webhookAttemptsPerTenant, maxWaiting: deps.outbound.webhookWaitingPerTenant, maxWaitMs: LEASE_WAIT_MS },
      breaker: { failureThreshold: deps.outbound.breakerFailureThreshold, openMs: deps.outbound.breakerOpenMs },
      maxParkedPerTenant: deps.outbound.webhookParkedPerTenant,
    }),
    ...createWebhookHealthActivities({ db: deps.db, startNotification }),
    ...createMaintenanceActivities({ db: deps.db }),
    ...createPrivacyExportActivities({ db: deps.db, objectStore: deps.objectStore }),
    ...createReportActivities({ db: deps.db, objectStore: deps.objectStore, sandbox: deps.sandbox, mailer: deps.mailer, mailFrom: deps.mailFrom }),
    ...createPrivacyErasureActivities({ db: deps.db, objectStore: deps.objectStore }),
    ...createRetentionActivities({ db: deps.db }),
    ...createMachineAgentActivities({ db: deps.db, startNotification, llm: deps.llm, planModels: deps.planModels }),
    ...createConversationActivities({
      db: deps.db,
      dataEncryptionKey: deps.dataEncryptionKey,
      whatsappApiBaseUrl: deps.whatsappApiBaseUrl,
      allowPrivateDestinations: deps.allowPrivateWebhookDestinations,
      llm: deps.llm,
      planModels: deps.planModels,
      smtpSendsPerTenant: deps.outbound.smtpSendsPerTenant,
      toolCallsPerTenant: deps.outbound.toolCallsPerTenant,
    }),
    ...createExtractionActivities({ db: deps.db, objectStore: deps.objectStore, llm: deps.llm, sandbox: deps.sandbox }),
  };
}
