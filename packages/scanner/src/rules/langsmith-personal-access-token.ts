import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * LangSmith personal access token: `lsv2_pt_` + 32 hex + `_` + 10 hex. LangSmith docs, "Create an API key"
 * (https://docs.smith.langchain.com/administration/how_to_guides/organization_management/create_account_api_key).
 */
const rule: Rule = {
  id: "langsmith-personal-access-token",
  label: "LangSmith personal access token",
  prefixes: ["lsv2_pt_"],
  pattern: /lsv2_pt_(?<body>[a-f0-9]{32}_[a-f0-9]{10})/y,
  validate: (v) => looksRandom(v.slice(0, 32)),
  examples: () => ({
    positive: [
      `LANGSMITH_API_KEY=lsv2_pt_${randomChars(32, 5891, ALPHABETS.hex)}_${randomChars(10, 5892, ALPHABETS.hex)}`,
      `"lsv2_pt_${randomChars(32, 5893, ALPHABETS.hex)}_${randomChars(10, 5894, ALPHABETS.hex)}"`,
    ],
    negative: [
      "LANGSMITH_API_KEY=lsv2_pt_...", // elided
      `lsv2_pt_${"0".repeat(32)}_${randomChars(10, 5895, ALPHABETS.hex)}`, // zeroed
      `lsv2_pt_${randomChars(32, 5896, ALPHABETS.hex)}`, // truncated
    ],
  }),
};
export default rule;
