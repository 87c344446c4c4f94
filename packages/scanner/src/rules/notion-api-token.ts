import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Notion integration token (2024 format): `ntn_` + 11 digits + 35 base62 characters. Notion
 * developers, "Authorization: internal integrations" (https://developers.notion.com/docs/authorization);
 * gitleaks `notion-api-token`. Legacy `secret_` tokens are too generic a prefix and are not matched.
 */
const rule: Rule = {
  id: "notion-api-token",
  label: "Notion integration token",
  prefixes: ["ntn_"],
  pattern: /ntn_(?<body>\d{11}[A-Za-z0-9]{35})/y,
  validate: (v) => looksRandom(v.slice(11)),
  examples: () => ({
    positive: [
      `NOTION_TOKEN=ntn_${randomChars(11, 721, ALPHABETS.digits)}${randomChars(35, 722)}`,
      `notion_token = 'ntn_${randomChars(11, 723, ALPHABETS.digits)}${randomChars(35, 724)}'`,
    ],
    negative: [
      "ntn_12345678901", // truncated
      `ntn_${randomChars(11, 725, ALPHABETS.digits)}${randomChars(34, 726)}`, // one character short
      `xntn_${randomChars(11, 727, ALPHABETS.digits)}${randomChars(35, 728)}`, // prefix glued inside a word
      "ntn_123456789012345678901234567890123456789012345678901234567890", // digits only
    ],
  }),
};
export default rule;
