import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * GitLab routable runner authentication token: `glrt-t<digit>_` + 27 to 300 base64url characters + `.` +
 * 2-character version + 7-character base36 CRC.
 * Format: GitLab docs, "GitLab token overview" (https://docs.gitlab.com/ee/security/tokens/); gitleaks rule `gitlab-runner-authentication-token-routable`.
 */
const token = (seed: number): string =>
  `glrt-t1_${randomChars(36, seed, ALPHABETS.base64url)}.01${randomChars(7, seed + 1, ALPHABETS.lowerAlnum)}`;

const rule: Rule = {
  id: "gitlab-runner-authentication-token-routable",
  label: "GitLab runner authentication token (routable)",
  prefixes: ["glrt-t"],
  pattern: /glrt-t[0-9]_[0-9a-zA-Z_-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}/y,
  validate: (value) => isPlausibleSecret(value.slice(8, value.lastIndexOf("."))),
  examples: () =>
    tokenExamples(token, "CI_SERVER_TOKEN", [
      "glrt-tx_xxxxxxxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxx", // placeholder: runs of x
      token(3).slice(0, -1), // truncated: 8 characters after the dot
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
