import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * LangSmith service key: `lsv2_sk_` + 32 hex + `_` + 10 hex. LangSmith docs, "Create an API key"
 * (https://docs.smith.langchain.com/administration/how_to_guides/organization_management/create_account_api_key).
 */
const rule: Rule = {
  id: "langsmith-service-key",
  label: "LangSmith service key",
  prefixes: ["lsv2_sk_"],
  pattern: /lsv2_sk_(?<body>[a-f0-9]{32}_[a-f0-9]{10})/y,
  validate: (v) => looksRandom(v.slice(0, 32)),
  examples: () => ({
    positive: [
      `LANGSMITH_API_KEY=lsv2_sk_${randomChars(32, 3991, ALPHABETS.hex)}_${randomChars(10, 3992, ALPHABETS.hex)}`,
      `"lsv2_sk_${randomChars(32, 3993, ALPHABETS.hex)}_${randomChars(10, 3994, ALPHABETS.hex)}"`,
    ],
    negative: [
      "LANGSMITH_API_KEY=lsv2_sk_...", // elided
      `lsv2_sk_${"0".repeat(32)}_${randomChars(10, 3995, ALPHABETS.hex)}`, // zeroed
      `lsv2_sk_${randomChars(32, 3996, ALPHABETS.hex)}`, // truncated
    ],
  }),
};
export default rule;
