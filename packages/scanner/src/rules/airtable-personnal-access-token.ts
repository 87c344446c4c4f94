import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Airtable personal access token: `pat` + 14 base62 (token id) + `.` + 64 hex (secret). Airtable
 * support, "Creating personal access tokens" (https://support.airtable.com/docs/creating-personal-access-tokens);
 * gitleaks `airtable-personnal-access-token` (their spelling, kept so users recognise the id).
 * The prefix is short; the dot and the 64 hex characters make the structure distinctive.
 */
const rule: Rule = {
  id: "airtable-personnal-access-token",
  label: "Airtable personal access token",
  prefixes: ["pat"],
  pattern: /pat[A-Za-z0-9]{14}\.(?<body>[a-f0-9]{64})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `AIRTABLE_TOKEN=pat${randomChars(14, 731)}.${randomChars(64, 732, ALPHABETS.hex)}`,
      `Authorization: Bearer pat${randomChars(14, 733)}.${randomChars(64, 734, ALPHABETS.hex)}`,
    ],
    negative: [
      `patxxxxxxxxxxxxxx.${"0".repeat(64)}`, // placeholder
      "the pattern matches.", // ordinary word
      `pat${randomChars(14, 735)}.${randomChars(40, 736, ALPHABETS.hex)}`, // truncated secret
    ],
  }),
};
export default rule;
