import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * GitLab CI/CD job token: `glcbt-` + 1 to 5 alphanumerics (partition) + `_` + 20 characters of `[0-9A-Za-z_-]`.
 * Format: GitLab docs, "GitLab token overview" (https://docs.gitlab.com/ee/security/tokens/), token prefixes table;
 * gitleaks rule `gitlab-cicd-job-token`.
 */
const token = (seed: number): string => `glcbt-${randomChars(2, seed, ALPHABETS.hex)}_${randomChars(20, seed + 1, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "gitlab-cicd-job-token",
  label: "GitLab CI/CD job token",
  prefixes: ["glcbt-"],
  pattern: /glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z_-]{20}/y,
  validate: (value) => isPlausibleSecret(value.slice(value.indexOf("_") + 1)),
  examples: () =>
    tokenExamples(token, "CI_JOB_TOKEN", [
      `glcbt-64_${"X".repeat(20)}`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
