import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * GitLab Kubernetes agent token: `glagent-` + 50 characters of `[0-9A-Za-z_-]`.
 * Format: GitLab docs, "GitLab token overview" (https://docs.gitlab.com/ee/security/tokens/), token prefixes table;
 * gitleaks rule `gitlab-kubernetes-agent-token`.
 */
const token = (seed: number): string => `glagent-${randomChars(50, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "gitlab-kubernetes-agent-token",
  label: "GitLab Kubernetes agent token",
  prefixes: ["glagent-"],
  pattern: /glagent-[A-Za-z0-9_-]{50}/y,
  validate: (value) => isPlausibleSecret(value.slice(8)),
  examples: () =>
    tokenExamples(token, "GITLAB_TOKEN", [
      `glagent-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
