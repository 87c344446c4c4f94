import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * New Relic browser ingest key: `NRJS-` + 19 characters of `[a-f0-9]`. New Relic docs, "New Relic API keys: browser key" (https://docs.newrelic.com/docs/apis/intro-apis/new-relic-api-keys/#browser-key); gitleaks `new-relic-browser-api-token`.
 */
const rule: Rule = {
  id: "new-relic-browser-api-token",
  label: "New Relic browser ingest key",
  prefixes: ["NRJS-"],
  pattern: /NRJS-(?<body>[a-f0-9]{19})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`KEY=NRJS-${randomChars(19, 6021, ALPHABETS.hex)}`, `"token": "NRJS-${randomChars(19, 6022, ALPHABETS.hex)}"`],
    negative: [
      `NRJS-${"0".repeat(19)}`, // zeroed placeholder
      `NRJS-${randomChars(19 - 6, 6023, ALPHABETS.hex)}`, // truncated
      `NRJS-${randomChars(19 + 4, 6024, ALPHABETS.hex)}`, // too long: part of something else
      `wordNRJS-${randomChars(19, 6025, ALPHABETS.hex)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
