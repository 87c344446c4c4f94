import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * GitLab runner authentication token: `glrt-` + 20 characters of `[0-9A-Za-z_-]`.
 * Format: GitLab docs, "GitLab token overview" (https://docs.gitlab.com/ee/security/tokens/), token prefixes table;
 * gitleaks rule `gitlab-runner-authentication-token`.
 */
const token = (seed: number): string => `glrt-${randomChars(20, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "gitlab-runner-authentication-token",
  label: "GitLab runner authentication token",
  prefixes: ["glrt-"],
  pattern: /glrt-[A-Za-z0-9_-]{20}/y,
  validate: (value) => isPlausibleSecret(value.slice(5)),
  examples: () =>
    tokenExamples(token, "GITLAB_TOKEN", [
      `glrt-XXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
