import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * JFrog reference token: base64 of `reftkn:01:<expiry>:<id>` = `cmVmdGtuOjAxOj` + 50 alphanumerics (64 in all).
 * Format: JFrog docs, "Reference tokens" (https://jfrog.com/help/r/jfrog-platform-administration-documentation/reference-tokens);
 * gitleaks rule `artifactory-reference-token` (which keys on the shorter `cmVmd`).
 */
const token = (seed: number): string => `cmVmdGtuOjAxOj${randomChars(50, seed)}`;

const rule: Rule = {
  id: "artifactory-reference-token",
  label: "JFrog Artifactory reference token",
  prefixes: ["cmVmdGtuOjAxOj"],
  pattern: /cmVmdGtuOjAxOj[A-Za-z0-9]{50}/y,
  validate: (value) => isPlausibleSecret(value.slice(14), { minEntropy: 4 }),
  examples: () =>
    tokenExamples(token, "ARTIFACTORY_ACCESS_TOKEN", [
      `cmVmdGtuOjAxOjXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
