import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Defined Networking (Managed Nebula) API key: `dnkey-` + 26 + `-` + 52 characters of
 * `[A-Za-z0-9=_-]`. Manages a Nebula overlay network's hosts and certificates.
 * Format: Defined Networking API docs, "Authentication" (https://docs.defined.net/api/);
 * gitleaks rule `defined-networking-api-token`.
 */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const token = (seed: number): string => `dnkey-${randomChars(26, seed, ALPHABET)}-${randomChars(52, seed + 1, ALPHABET)}`;

const rule: Rule = {
  id: "defined-networking-api-token",
  label: "Defined Networking API key",
  prefixes: ["dnkey-"],
  pattern: /dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}/y,
  validate: (value) => isPlausibleSecret(value.slice(6).replace("-", "")),
  examples: () =>
    tokenExamples(token, "DN_API_KEY", [
      `dnkey-${"A".repeat(26)}-${"A".repeat(52)}`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
    ]),
};
export default rule;
