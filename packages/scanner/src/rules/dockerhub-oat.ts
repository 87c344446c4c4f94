import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Docker Hub organization access token: `dckr_oat_` + 27 to 40 characters of `[A-Za-z0-9_-]`.
 * Format: Docker docs, "Organization access tokens" (https://docs.docker.com/security/for-admins/access-tokens/).
 */
const token = (seed: number): string => `dckr_oat_${randomChars(32, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "dockerhub-oat",
  label: "Docker Hub organization access token",
  prefixes: ["dckr_oat_"],
  pattern: /dckr_oat_[A-Za-z0-9_-]{27,40}/y,
  validate: (value) => isPlausibleSecret(value.slice(9)),
  examples: () =>
    tokenExamples(token, "DOCKERHUB_TOKEN", [
      `dckr_oat_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `dckr_oat_${randomChars(26, 3)}`, // truncated: 26 characters
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
