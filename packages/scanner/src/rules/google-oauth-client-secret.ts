import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Google OAuth 2.0 client secret (format since 2021): `GOCSPX-` + 28 characters of
 * `[A-Za-z0-9_-]`. With the client ID it lets anyone act as the application in OAuth flows.
 * Format: Google Cloud blog / Identity docs, "OAuth client secret format change"
 * (https://developers.google.com/identity/protocols/oauth2); client_secret.json `"client_secret"`.
 */
const URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const token = (seed: number): string => `GOCSPX-${randomChars(28, seed, URLSAFE)}`;

const rule: Rule = {
  id: "google-oauth-client-secret",
  label: "Google OAuth client secret",
  prefixes: ["GOCSPX-"],
  pattern: /GOCSPX-[A-Za-z0-9_-]{28}/y,
  validate: (value) => isPlausibleSecret(value.slice(7)),
  examples: () =>
    tokenExamples(token, "GOOGLE_CLIENT_SECRET", [
      `GOCSPX-${"x".repeat(28)}`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
    ]),
};
export default rule;
