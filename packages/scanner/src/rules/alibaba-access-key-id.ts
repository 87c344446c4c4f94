import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Alibaba Cloud AccessKey ID: `LTAI` + 20 alphanumerics (24 characters in all).
 * Format: Alibaba Cloud RAM docs, "Create an AccessKey pair" (https://www.alibabacloud.com/help/en/ram/user-guide/create-an-accesskey-pair);
 * gitleaks rule `alibaba-access-key-id`. The ID alone names a key pair; leaking it next to its secret grants account access.
 */
const token = (seed: number): string => `LTAI${randomChars(20, seed)}`;

const rule: Rule = {
  id: "alibaba-access-key-id",
  label: "Alibaba Cloud AccessKey ID",
  prefixes: ["LTAI"],
  pattern: /LTAI[A-Za-z0-9]{20}/y,
  validate: (value) => isPlausibleSecret(value.slice(4)),
  examples: () =>
    tokenExamples(token, "ALIBABA_CLOUD_ACCESS_KEY_ID", [
      `LTAIXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
