import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

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
  pattern: /pul-[a-f0-9]{40}/y,
  validate: (value) => isPlausibleSecret(value.slice(4)),
  examples: () =>
    tokenExamples(token, "PULUMI_ACCESS_TOKEN", [
      `pul-0000000000000000000000000000000000000000`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
