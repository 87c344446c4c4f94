/**
 * Every error code the server sends and the client understands. A code never changes meaning;
 * its message may be reworded. `http` is the status the HTTP API answers with; `retry` tells a
 * client whether sending the same request later can succeed without changing it.
 * ERRORS.md (beside this package's README) documents each code; a test keeps the two equal.
 */
export const ERRORS = {
  invalid_request: { http: 400, retry: false },
  invalid_path: { http: 400, retry: false },
  invalid_utf8: { http: 400, retry: false },
  unauthorized: { http: 401, retry: false },
  token_expired: { http: 401, retry: false },
  token_revoked: { http: 401, retry: false },
  forbidden: { http: 403, retry: false },
  not_found: { http: 404, retry: false },
  version_conflict: { http: 409, retry: false },
  path_case_conflict: { http: 409, retry: false },
  path_type_conflict: { http: 409, retry: false },
  already_exists: { http: 409, retry: false },
  last_admin_token: { http: 409, retry: false },
  body_too_large: { http: 413, retry: false },
  entry_too_large: { http: 413, retry: false },
  batch_too_large: { http: 413, retry: false },
  namespace_full: { http: 422, retry: false },
  secret_detected: { http: 422, retry: false },
  unsupported_media_type: { http: 415, retry: false },
  rate_limited: { http: 429, retry: true },
  database_busy: { http: 503, retry: true },
  internal_error: { http: 500, retry: true },
} as const satisfies Record<string, { http: number; retry: boolean }>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]];
