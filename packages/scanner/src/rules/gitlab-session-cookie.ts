import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * GitLab session cookie: `_gitlab_session=` + 32 lowercase alphanumerics; grants the user's web session.
 * Format: GitLab docs, "GitLab token overview" (https://docs.gitlab.com/ee/security/tokens/); gitleaks rule `gitlab-session-cookie`.
 */
const token = (seed: number): string => `_gitlab_session=${randomChars(32, seed, ALPHABETS.lowerAlnum)}`;

const rule: Rule = {
  id: "gitlab-session-cookie",
  label: "GitLab session cookie",
  prefixes: ["_gitlab_session="],
  pattern: /_gitlab_session=(?<secret>[0-9a-z]{32})/y,
  validate: (value) => isPlausibleSecret(value.slice(16)),
  examples: () => ({
    positive: [
      `Cookie: ${token(1)}; path=/`,
      `curl -b '${token(2)}' https://gitlab.example.com/api/v4/user`,
    ],
    negative: [
      `_gitlab_session=${"0".repeat(32)}`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: 31 characters
      "_gitlab_session=<session-id>", // placeholder
    ],
  }),
};
export default rule;
