import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * GitHub fine-grained personal access token: `github_pat_` + 22 base62 + `_` + 59 base62
 * (93 characters in all). Format: GitHub docs, "Managing your personal access tokens"
 * (https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/managing-your-personal-access-tokens)
 * and GitHub blog, "Introducing fine-grained personal access tokens" (2022-10-18);
 * gitleaks rule `github-fine-grained-pat`. GitHub has not published a checksum for this format.
 */
const token = (seed: number): string => `github_pat_${randomChars(22, seed)}_${randomChars(59, seed + 1)}`;

const rule: Rule = {
  id: "github-fine-grained-pat",
  label: "GitHub fine-grained personal access token",
  prefixes: ["github_pat_"],
  pattern: /github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}/y,
  validate: (value) => isPlausibleSecret(value.slice(11, 33)) && isPlausibleSecret(value.slice(34)),
  examples: () => ({
    positive: [`GITHUB_TOKEN=${token(1)}`, `password: "${token(3)}"`],
    negative: [
      `github_pat_${"x".repeat(22)}_${"x".repeat(59)}`, // placeholder: one repeated character
      token(5).slice(0, -1), // truncated: 58 characters after the underscore
      `my_github_pat_${token(7).slice(11)}`, // prefix glued to the end of a longer identifier
    ],
  }),
};
export default rule;
