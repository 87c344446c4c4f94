import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

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
  pattern: /(?<![A-Za-z0-9_-])dckr_pat_[A-Za-z0-9_-]{27}(?![A-Za-z0-9_-])/y,
  validate: (value) => isPlausibleSecret(value.slice(9)),
  examples: () => ({
    positive: [
      `DOCKERHUB_TOKEN=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export DOCKERHUB_TOKEN='${token(5)}'`,
    ],
    negative: [
      `dckr_pat_XXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      `x${token(4)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
