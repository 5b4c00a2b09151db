/** A failure the API answered: its HTTP status, its stable error code and its message. */
export class EngramError extends Error {
  /** The HTTP status; 0 when the service could not be reached or did not answer in time. */
  readonly status: number;
  /** The API's error code: `invalid_request`, `unauthorized`, `not_found`, `rate_limited`, … */
  readonly code: string;
  /** Seconds the answer's `Retry-After` asked to wait, if it said. */
  readonly retryAfter: number | undefined;

  constructor(status: number, code: string, message: string, retryAfter?: number) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

/** 401: no API key, or an unknown, revoked or expired one, or one of a deleted tenant. */
export class AuthenticationError extends EngramError {}

/**
 * 403: the key may not do this: the request names another tenant (`forbidden`), the key's scopes do not cover it
 * (`insufficient_scope`), the tenant is suspended (`tenant_suspended`), or a write would pass one of the tenant's
 * quotas (`quota_exceeded`); `code` says which.
 */
export class PermissionDeniedError extends EngramError {}

/** 404: no such record, forget or endpoint. */
export class NotFoundError extends EngramError {}

/** 400 or 413: the request is malformed or too large; retrying it unchanged will fail again. */
export class InvalidRequestError extends EngramError {}

/** 429: the key made too many requests; retried automatically before this is thrown. */
export class RateLimitError extends EngramError {}

/** 503, another 5xx, or status 0 when the service could not be reached; retried automatically before this is thrown. */
export class UnavailableError extends EngramError {}

/** `waitUntilSearchable` ran out of time before the pipeline indexed a record. */
export class NotSearchableError extends Error {
  readonly recordId: string;

  constructor(recordId: string, timeoutMs: number) {
    super(`${recordId} not searchable within ${timeoutMs} ms`);
    this.name = "NotSearchableError";
    this.recordId = recordId;
  }
}

/** `waitUntilForgotten` ran out of time before the pipeline removed what a forget covers. */
export class ForgetPendingError extends Error {
  readonly forgetId: string;

  constructor(forgetId: string, timeoutMs: number) {
    super(`forget ${forgetId} not done within ${timeoutMs} ms`);
    this.name = "ForgetPendingError";
    this.forgetId = forgetId;
  }
}

const BY_STATUS: Record<number, new (status: number, code: string, message: string, retryAfter?: number) => EngramError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  413: InvalidRequestError,
  429: RateLimitError,
};

/** The error an answer's status maps to. */
export function errorFor(status: number, code: string, message: string, retryAfter?: number): EngramError {
  const kind = BY_STATUS[status] ?? (status === 0 || status >= 500 ? UnavailableError : EngramError);
  return new kind(status, code, message, retryAfter);
}
