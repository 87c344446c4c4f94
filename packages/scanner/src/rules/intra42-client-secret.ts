import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * 42 school intranet (Intra) OAuth client secret: `s-s4t2ud-` (or `s-s4t2af-`) + 64 hex. 42 API docs,
 * "Getting started: OAuth applications" (https://api.intra.42.fr/apidoc/guides/getting_started);
 * gitleaks `intra42-client-secret`.
 */
const rule: Rule = {
  id: "intra42-client-secret",
  label: "42 Intra client secret",
  prefixes: ["s-s4t2ud-", "s-s4t2af-"],
  pattern: /s-s4t2(?:ud|af)-(?<body>[a-f0-9]{64})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`INTRA_SECRET=s-s4t2ud-${randomChars(64, 871, ALPHABETS.hex)}`, `"s-s4t2af-${randomChars(64, 872, ALPHABETS.hex)}"`],
    negative: [
      `s-s4t2ud-${"0".repeat(64)}`, // zeroed
      `s-s4t2ud-${randomChars(40, 873, ALPHABETS.hex)}`, // truncated
    ],
  }),
};
export default rule;
