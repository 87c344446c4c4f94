import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Octopus Deploy API key: `API-` + 26 upper-case alphanumerics. `API-` is an ordinary word prefix,
 * so the body must contain at least two digits and look random (documentation slugs such as
 * `API-DOCUMENTATION…` do not).
 * Format: Octopus docs, "How to create an API key" (https://octopus.com/docs/octopus-rest-api/how-to-create-an-api-key);
 * gitleaks rule `octopus-deploy-api-key`.
 */
const token = (seed: number): string => `API-${randomChars(26, seed, ALPHABETS.upperAlnum)}`;

const rule: Rule = {
  id: "octopus-deploy-api-key",
  label: "Octopus Deploy API key",
  prefixes: ["API-"],
  pattern: /API-[A-Z0-9]{26}/y,
  validate: (value) => (value.slice(4).match(/[0-9]/g)?.length ?? 0) >= 2 && isPlausibleSecret(value.slice(4)),
  examples: () => ({
    positive: [`set apikey="${token(1)}"`, `OCTOPUS_API_KEY=${token(2)}`],
    negative: [
      `API-${"X".repeat(26)}`, // placeholder: one repeated character
      'msgstr "GSSAPI-VIRHEKAPSELOINTIMERKKIJONO."', // prefix inside a longer word
      "see API-DOCUMENTATIONFORTHEAPIX for details", // words, no digits
      `https://example.notion.site/API-${randomChars(32, 3, ALPHABETS.upperHex)}`, // 32 characters: a page slug
    ],
  }),
};
export default rule;
