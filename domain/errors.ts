/**
 * The error catalogue (DESIGN.md). Every failure the API reports is an AppError; the error
 * middleware turns it into `{detail, error_code, request_id, ...extra}` with its status.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  PLAN_LIMIT_REACHED: 403,
  /** The tenant is suspended by the service's operator: its logins and tokens are refused until it is resumed. */
  TENANT_SUSPENDED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  INVALID_STATE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_ERROR: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  DEPENDENCY_UNAVAILABLE: 503,
  /** The process is stopping (readiness while it drains): another replica takes the request. */
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  field: string;
  message: string;
  type: string;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode | DomainErrorCode,
    detail: string,
    readonly extra: Record<string, unknown> = {},
    status?: number,
  ) {
    super(detail);
    this.name = 'AppError';
    this.status = status ?? ERROR_STATUS[code as ErrorCode] ?? 400;
  }
}

/** Domain rules carry their own codes with an explicit status, e.g. EMAIL_ACCOUNT_INACTIVE 422. */
export type DomainErrorCode = `${Uppercase<string>}`;

export const notFound = (resource: string): AppError => new AppError('NOT_FOUND', `${resource} not found`);
export const conflict = (detail: string): AppError => new AppError('CONFLICT', detail);
export const invalidState = (detail: string): AppError => new AppError('INVALID_STATE', detail);
export const forbidden = (detail = 'missing permission'): AppError => new AppError('FORBIDDEN', detail);
export const unauthenticated = (detail = 'authentication required'): AppError => new AppError('UNAUTHENTICATED', detail);
export const validationError = (detail: string, fields: FieldError[]): AppError => new AppError('VALIDATION_ERROR', detail, { fields });
export const tenantSuspended = (): AppError => new AppError('TENANT_SUSPENDED', "the tenant is suspended; contact the service's operator");
export const dependencyUnavailable = (component: string, detail: string): AppError => new AppError('DEPENDENCY_UNAVAILABLE', detail, { component });
