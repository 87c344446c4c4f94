import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Registry auth token in an `.npmrc` line: `//<registry>/:_authToken=<token>` (legacy npm UUID
 * tokens, GitHub Packages, Artifactory, Nexus, Verdaccio, …). The literal `:_authToken=` is the
 * prefilter. Environment references (`${NPM_TOKEN}`) and placeholders are not reported; values that
 * start with a prefix another rule reports (`npm_`, `ghp_`, `github_pat_`, `glpat-`) are left to it.
 * Format: npm docs, "npmrc" / "Auth related configuration"
 * (https://docs.npmjs.com/cli/v10/configuring-npm/npmrc#auth-related-configuration);
 * secretlint rule `@secretlint/secretlint-rule-npm` (`.npmrc` check).
 */
const uuid = (seed: number): string => {
  const h = randomChars(32, seed, ALPHABETS.hex);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

const rule: Rule = {
  id: "npmrc-auth-token",
  label: "npm registry auth token (.npmrc)",
  prefixes: [":_authToken="],
  pattern:
    /:_authToken=[ \t]{0,16}["']?(?<secret>(?!npm_|gh[pousr]_|github_pat_|glpat-)[A-Za-z0-9._~+/=-]{20,512})["']?/y,
  validate: (value) => isPlausibleSecret(value, { minEntropy: 3.3 }),
  examples: () => ({
    positive: [
      `//registry.npmjs.org/:_authToken=${uuid(1)}`,
      `//npm.pkg.github.com/:_authToken=${randomChars(40, 2)}`,
      `//nexus.example.com/repository/npm/:_authToken="NpmToken.${uuid(3)}"`,
    ],
    negative: [
      "//npm.pkg.github.com/:_authToken=${NPM_TOKEN}", // environment reference
      "//registry.npmjs.org/:_authToken=111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", // placeholder: runs of one character
      "//registry.npmjs.org/:_authToken=<your-token>", // placeholder
    ],
  }),
};
export default rule;
