import type { ErrorBody, ErrorCode, WireFinding } from "@teammem/protocol";

/**
 * A request refused with a stable code from the protocol's error registry (`ERRORS`). The one
 * error type of the server: domain code throws it (or, in a batch, turns it into the operation's
 * `rejected` result with {@link Refusal.toBody}); the HTTP error handler (plugins/errors.ts) answers
 * with the status and retry advice the registry gives its code; a stream closes with the code's
 * close code. It knows nothing of HTTP.
 * `message` is for people and must never contain content, tokens or secret values; `details` is
 * machine-readable (e.g. `{ limit, value }`); `findings` are rule and position only.
 */
export class Refusal extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly findings?: readonly WireFinding[],
  ) {
    super(message);
    this.name = "Refusal";
  }

  /** `{ code, message, details?, findings? }`: an error reply's body, a `rejected` result's fields. */
  toBody(): ErrorBody {
    return {
      code: this.code,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
      ...(this.findings ? { findings: [...this.findings] } : {}),
    };
  }
}
