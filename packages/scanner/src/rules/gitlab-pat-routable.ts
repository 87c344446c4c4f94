import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * GitLab routable personal access token (GitLab 17.x+): `glpat-` + 27 to 300 base64url characters
 * (encoded payload) + `.` + 2-character version + 7-character base36 CRC.
 * Format: GitLab docs, "GitLab token overview" (https://docs.gitlab.com/ee/security/tokens/); gitleaks rule `gitlab-pat-routable`.
 */
const token = (seed: number): string =>
  `glpat-${randomChars(36, seed, ALPHABETS.base64url)}.01${randomChars(7, seed + 1, ALPHABETS.lowerAlnum)}`;

const rule: Rule = {
  id: "gitlab-pat-routable",
  label: "GitLab personal access token (routable)",
  prefixes: ["glpat-"],
  pattern: /glpat-[0-9a-zA-Z_-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}/y,
  validate: (value) => isPlausibleSecret(value.slice(6, value.lastIndexOf("."))),
  examples: () =>
    tokenExamples(token, "GITLAB_TOKEN", [
      "glpat-xxxxxxxx-xxxxxxxxxxxxxxxxxx.xxxxxxxxx", // placeholder: runs of x
      token(3).slice(0, -1), // truncated: 8 characters after the dot
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
