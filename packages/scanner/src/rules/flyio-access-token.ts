import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Fly.io API tokens: `fo1_` + 43 base64url characters (personal/org token), or the macaroon
 * tokens `fm1a_` / `fm1r_` / `fm2_` + 100 to 6000 base64 characters (usually written after `FlyV1 `).
 * Macaroons are binary-structured (runs of `A` are normal), so only the entropy and placeholder
 * words are checked for them.
 * Format: Fly.io docs, "Access tokens" (https://fly.io/docs/security/tokens/); gitleaks rule
 * `flyio-access-token`.
 */
const fo1 = (seed: number): string => `fo1_${randomChars(43, seed, ALPHABETS.base64url)}`;
const macaroon = (prefix: string, seed: number): string =>
  `${prefix}lJPECAAAAAAAA${randomChars(300, seed, ALPHABETS.base64)}==`;

const rule: Rule = {
  id: "flyio-access-token",
  label: "Fly.io access token",
  prefixes: ["fo1_", "fm1a_", "fm1r_", "fm2_"],
  pattern:
    /(?:fo1_[A-Za-z0-9_-]{43}|(?:fm1[ar]|fm2)_[A-Za-z0-9+/]{100,6000}={0,3})/y,
  validate: (value) =>
    value.startsWith("fo1_")
      ? isPlausibleSecret(value.slice(4))
      : isPlausibleSecret(value.slice(value.indexOf("_") + 1), { minEntropy: 4, maxRun: Infinity, maxSequence: Infinity }),
  examples: () => ({
    positive: [
      `FLY_API_TOKEN=${fo1(1)}`,
      `FLY_API_TOKEN="FlyV1 ${macaroon("fm2_", 2)}"`,
      `"token": "FlyV1 ${macaroon("fm1r_", 3)}"`,
    ],
    negative: [
      `api_key = "fo1_${"x".repeat(43)}"`, // placeholder: one repeated character
      fo1(4).slice(0, -1), // truncated: 42 characters after the prefix
      `7SWa-Fo1_${randomChars(43, 5)}`, // different case inside a longer token
      `fm2_${randomChars(60, 6)}`, // truncated macaroon: 60 characters
    ],
  }),
};
export default rule;
