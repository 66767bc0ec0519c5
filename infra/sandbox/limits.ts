/**
 * The bounds of untrusted-file work (docs/SECURITY.md, "Untrusted files"; the figures behind each
 * are in docs/decisions/untrusted-file-sandbox.md). Per process: the API's pool serves direct report
 * renders and logo checks, the worker's serves extractions and report jobs.
 */
import type { TenantLimits } from '../tenant-limiter';
import type { InflationLimits } from './tasks/pdf-inflation';

const MIB = 1024 * 1024;

/** A tenant's share of a pool: one task running or queued, one more waiting up to 10 s. */
export const TENANT_SHARE: TenantLimits = { maxInFlight: 1, maxWaiting: 1, maxWaitMs: 10_000 };
/** Tasks waiting for a child, all tenants. */
export const MAX_QUEUED = 16;

/** Time limits per task. */
export const TIME_LIMITS = {
  /** A 360-page text PDF reads in 7-13 s here. */
  pdfText: 120_000,
  /** A report job: 5 000 table rows render in about 5 s. */
  reportJob: 120_000,
  /** A direct render of at most DIRECT_REPORT_MAX_ROWS rows: about 3 s. */
  reportDirect: 30_000,
  /** A logo: libvips decodes and re-encodes one in under 0.5 s. */
  logo: 15_000,
} as const;

/** FlateDecode streams of a PDF: 256 MiB inflated in all, and no more than 200 times their size once past 32 MiB. */
export const PDF_INFLATION: InflationLimits = { maxInflatedBytes: 256 * MIB, maxRatio: 200, ratioFloorBytes: 32 * MIB };

/** A logo's decoded pixels at most (a 24-megapixel camera photo passes; a 16 000 x 16 000 header does not). */
export const LOGO_MAX_PIXELS = 25_000_000;
/** The re-encoded logo's longest side: reports draw it 40 pt (PDF) or 64 px (XLSX) wide. */
export const LOGO_MAX_SIDE = 256;

/** Table rows a direct render (GET /reports/direct/...) draws at most, and ten times as many rows read to shape them; more is a report job. */
export const DIRECT_REPORT_MAX_ROWS = 2_000;
