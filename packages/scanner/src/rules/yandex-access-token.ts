import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Yandex Cloud IAM token: `t1.` + base64url header + `.` + 86-character base64url signature.
 * Yandex Cloud docs, "IAM token" (https://yandex.cloud/en/docs/iam/concepts/authorization/iam-token);
 * gitleaks `yandex-access-token`.
 */
const rule: Rule = {
  id: "yandex-access-token",
  label: "Yandex Cloud IAM token",
  prefixes: ["t1."],
  pattern: /t1\.[A-Za-z0-9_-]{10,300}={0,2}\.(?<body>[A-Za-z0-9_-]{86}={0,2})/y,
  validate: (v) => looksRandom(v.replace(/=+$/, "")),
  examples: () => ({
    positive: [
      `YC_TOKEN=t1.${randomChars(120, 891, ALPHABETS.base64url)}.${randomChars(86, 892, ALPHABETS.base64url)}`,
      `Authorization: Bearer t1.${randomChars(60, 893, ALPHABETS.base64url)}.${randomChars(86, 894, ALPHABETS.base64url)}`,
    ],
    negative: [
      `t1.${randomChars(60, 895, ALPHABETS.base64url)}`, // no signature
      "see section t1.2.3 of the spec", // section number
      `t1.${randomChars(60, 896, ALPHABETS.base64url)}.${"x".repeat(86)}`, // placeholder signature
    ],
  }),
};
export default rule;
