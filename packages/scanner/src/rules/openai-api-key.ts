import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/** Base64 of "OpenAI": the marker every OpenAI key carries in its middle. */
const MARKER = "T3BlbkFJ";

/**
 * OpenAI API key: project (`sk-proj-`), service account (`sk-svcacct-`) and admin (`sk-admin-`) keys,
 * `<prefix>` + 58 or 74 base64url + `T3BlbkFJ` + 58 or 74 base64url; and legacy user keys `sk-` + 20
 * base62 + `T3BlbkFJ` + 20 base62. OpenAI platform docs, "API keys"
 * (https://platform.openai.com/docs/api-reference/authentication); gitleaks `openai-api-key`.
 * Without the marker the text is not an OpenAI key (OpenAI-compatible `sk-` keys of other vendors).
 */
const rule: Rule = {
  id: "openai-api-key",
  label: "OpenAI API key",
  prefixes: ["sk-"],
  pattern:
    /sk-(?:(?:proj|svcacct|admin)-(?<body>[A-Za-z0-9_-]{20,160}T3BlbkFJ[A-Za-z0-9_-]{20,160})|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})/y,
  validate: (v) => looksRandom(v.replace(MARKER, "")),
  examples: () => ({
    positive: [
      `OPENAI_API_KEY=sk-proj-${randomChars(74, 301, ALPHABETS.base64url)}${MARKER}${randomChars(74, 302, ALPHABETS.base64url)}`,
      `openai.api_key = "sk-admin-${randomChars(58, 303, ALPHABETS.base64url)}${MARKER}${randomChars(58, 304, ALPHABETS.base64url)}"`,
      `sk-${randomChars(20, 305)}${MARKER}${randomChars(20, 306)}`,
    ],
    negative: [
      `sk-proj-${randomChars(74, 307, ALPHABETS.base64url)}abdcefgh${randomChars(74, 308, ALPHABETS.base64url)}`, // no OpenAI marker
      "OPENAI_API_KEY=sk-proj-YOUR_KEY_HERE", // placeholder
      `task-${randomChars(20, 309)}${MARKER}${randomChars(20, 310)}`, // prefix inside a word
      `sk-${randomChars(20, 311)}${MARKER}${randomChars(12, 312)}`, // truncated
    ],
  }),
};
export default rule;
