/**
 * The memory an API or a worker pod holds, idle and at worst, from its parts: the figures measured
 * here (docs/decisions/pod-memory-from-measured-parts.md says how) and the bounds the code sets
 * (sandbox processes and budgets, password checks at scrypt's cost, mail parse threads, redaction
 * threads, inbound requests in flight with the mail body's limit). The deployment tests hold the pods' requests to the idle figure and
 * their limits to the worst case, in Kubernetes and in Compose.
 */
import { MAX_INBOUND_EMAIL_BYTES } from '../../api/routes/email-inbound';
import { OWASP_SCRYPT } from '../../domain/auth/passwords';
import { DEFAULT_INBOUND_IN_FLIGHT, DEFAULT_PASSWORD_CHECKS_IN_FLIGHT, DEFAULT_SANDBOX, type SandboxConfig } from '../../infra/config';
import { MAIL_PARSE_THREADS } from '../../infra/inbound-mail';
import { REDACTION_THREADS } from '../../infra/redaction-pool';

const MIB = 1024 * 1024;

/** Resident memory measured, in MiB (the upper end of each range). */
export const MEASURED_MIB = {
  /** The API process idle, its caches warm: 150-260. */
  apiProcess: 260,
  /** The worker process with 10 000 idle plans and its workflow cache: 639-700. */
  workerProcess: 700,
  /** A content sandbox child idle, its parsers loaded: 70-100. */
  sandboxChildIdle: 100,
  /** A mail parse thread at work on a 10 MiB message (its heap capped at 96 MiB). */
  mailParseThread: 150,
  /** A redaction thread scanning a 10 Mi-character text dense with values (two at once: +298). */
  redactionThread: 150,
} as const;

export type PodRole = 'api' | 'worker';

export interface PodMemory {
  /** What the pod holds once it has served: the process and its idle sandbox children. */
  idleMiB: number;
  /** Every bounded part at its bound at once. */
  worstCaseMiB: number;
  parts: Record<string, number>;
}

/** What a pod's configuration (its environment: config.env, Compose's) sets of the bounds below, over the defaults. */
export interface PodSettings {
  sandbox: SandboxConfig;
  passwordChecksInFlight: number;
  inboundInFlight: number;
}

export function podSettingsOf(env: Record<string, string | number | undefined>): PodSettings {
  const number = (name: string, fallback: number) => (env[name] === undefined ? fallback : Number(env[name]));
  return {
    sandbox: {
      processes: number('CONTENT_SANDBOX_PROCESSES', DEFAULT_SANDBOX.processes),
      apiMemoryMb: number('CONTENT_SANDBOX_API_MEMORY_MB', DEFAULT_SANDBOX.apiMemoryMb),
      workerMemoryMb: number('CONTENT_SANDBOX_WORKER_MEMORY_MB', DEFAULT_SANDBOX.workerMemoryMb),
    },
    passwordChecksInFlight: number('PASSWORD_CHECKS_IN_FLIGHT', DEFAULT_PASSWORD_CHECKS_IN_FLIGHT),
    inboundInFlight: number('INBOUND_IN_FLIGHT', DEFAULT_INBOUND_IN_FLIGHT),
  };
}

export function podMemory(role: PodRole, { sandbox, passwordChecksInFlight, inboundInFlight }: PodSettings): PodMemory {
  const budget = role === 'api' ? sandbox.apiMemoryMb : sandbox.workerMemoryMb;
  // A child is killed past its idle resident size plus the budget (infra/sandbox/pool.ts).
  const sandboxChildren = sandbox.processes * (MEASURED_MIB.sandboxChildIdle + budget);
  const parts: Record<string, number> =
    role === 'api'
      ? {
          process: MEASURED_MIB.apiProcess,
          sandboxChildren,
          // scrypt holds 128·N·r bytes per check (domain/auth/passwords.ts): 128 MiB at OWASP's cost.
          passwordChecks: (passwordChecksInFlight * 128 * OWASP_SCRYPT.N * OWASP_SCRYPT.r) / MIB,
          mailParseThreads: MAIL_PARSE_THREADS * MEASURED_MIB.mailParseThread,
          redactionThreads: REDACTION_THREADS * MEASURED_MIB.redactionThread,
          // Inbound requests in flight, each with a body of up to 10 MiB (a mail's, the largest).
          inboundBodies: (inboundInFlight * MAX_INBOUND_EMAIL_BYTES) / MIB,
        }
      : { process: MEASURED_MIB.workerProcess, sandboxChildren };
  const worstCaseMiB = Object.values(parts).reduce((sum, n) => sum + n, 0);
  const idleProcess = role === 'api' ? MEASURED_MIB.apiProcess : MEASURED_MIB.workerProcess;
  return { idleMiB: idleProcess + sandbox.processes * MEASURED_MIB.sandboxChildIdle, worstCaseMiB, parts };
}

/**
 * A memory quantity in binary units (`512Mi`, `2Gi`) in MiB: Kubernetes and Compose both read them
 * so (Compose also reads `512m` as MiB, Kubernetes as millibytes: the manifests use neither).
 */
export function quantityMiB(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`not a memory quantity in Mi or Gi: ${quantity}`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}
