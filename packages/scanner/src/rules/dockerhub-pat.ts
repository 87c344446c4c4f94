import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Docker Hub personal access token: `dckr_pat_` + 27 characters of `[A-Za-z0-9_-]`.
 * Format: Docker docs, "Personal access tokens" (https://docs.docker.com/security/for-developers/access-tokens/);
 * secretlint rule `@secretlint/secretlint-rule-docker`.
 */
const token = (seed: number): string => `dckr_pat_${randomChars(27, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "dockerhub-pat",
  label: "Docker Hub personal access token",
  prefixes: ["dckr_pat_"],
  pattern: /dckr_pat_[A-Za-z0-9_-]{27}/y,
  validate: (value) => isPlausibleSecret(value.slice(9)),
  examples: () =>
    tokenExamples(token, "DOCKERHUB_TOKEN", [
      `dckr_pat_XXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
