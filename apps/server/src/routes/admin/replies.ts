import { ErrorBody } from "@teammem/protocol";

/** Error replies every admin route may give, for the OpenAPI description. */
export const adminErrors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

export const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
