import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * GitLab incoming mail token: `glimt-` + 25 characters of `[0-9A-Za-z_-]`.
 * Format: GitLab docs, "GitLab token overview" (https://docs.gitlab.com/ee/security/tokens/), token prefixes table;
 * gitleaks rule `gitlab-incoming-mail-token`.
 */
const token = (seed: number): string => `glimt-${randomChars(25, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "gitlab-incoming-mail-token",
  label: "GitLab incoming mail token",
  prefixes: ["glimt-"],
  pattern: /glimt-[A-Za-z0-9_-]{25}/y,
  validate: (value) => isPlausibleSecret(value.slice(6)),
  examples: () =>
    tokenExamples(token, "GITLAB_TOKEN", [
      `glimt-XXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
