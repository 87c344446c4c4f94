import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * GitLab pipeline trigger token: `glptt-` + 40 lowercase hex.
 * Format: GitLab docs, "GitLab token overview" (https://docs.gitlab.com/ee/security/tokens/), token prefixes table;
 * gitleaks rule `gitlab-ptt`.
 */
const token = (seed: number): string => `glptt-${randomChars(40, seed, ALPHABETS.hex)}`;

const rule: Rule = {
  id: "gitlab-ptt",
  label: "GitLab pipeline trigger token",
  prefixes: ["glptt-"],
  pattern: /glptt-[a-f0-9]{40}/y,
  validate: (value) => isPlausibleSecret(value.slice(6)),
  examples: () =>
    tokenExamples(token, "GITLAB_TRIGGER_TOKEN", [
      `glptt-0000000000000000000000000000000000000000`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
