import { ERRORS, type ErrorCode } from "@teammem/protocol";

/**
 * An error with a stable code from the protocol's registry. Throw it anywhere in a request;
 * the error handler answers `{ code, message, details? }` with the code's HTTP status.
 * `message` must never contain content, tokens or secret values.
 */
export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ApiError";
    this.statusCode = ERRORS[code].http;
  }
}
