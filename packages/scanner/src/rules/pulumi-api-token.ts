import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Pulumi Cloud access token: `pul-` + 40 lowercase hex.
 * Format: Pulumi docs, "Access tokens" (https://www.pulumi.com/docs/pulumi-cloud/access-management/access-tokens/);
 * gitleaks rule `pulumi-api-token`.
 */
const token = (seed: number): string => `pul-${randomChars(40, seed, ALPHABETS.hex)}`;

const rule: Rule = {
  id: "pulumi-api-token",
  label: "Pulumi access token",
  prefixes: ["pul-"],
  pattern: /(?<![A-Za-z0-9_])pul-[a-f0-9]{40}(?![A-Za-z0-9_])/y,
  validate: (value) => isPlausibleSecret(value.slice(4)),
  examples: () => ({
    positive: [
      `PULUMI_ACCESS_TOKEN=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export PULUMI_ACCESS_TOKEN='${token(5)}'`,
    ],
    negative: [
      `pul-0000000000000000000000000000000000000000`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      `x${token(4)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
