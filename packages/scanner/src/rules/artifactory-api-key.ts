import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * JFrog Artifactory API key (legacy): `AKCp` + 69 alphanumerics.
 * Format: JFrog docs, "API Key" (https://jfrog.com/help/r/jfrog-platform-administration-documentation/api-key);
 * gitleaks rule `artifactory-api-key`.
 */
const token = (seed: number): string => `AKCp${randomChars(69, seed)}`;

const rule: Rule = {
  id: "artifactory-api-key",
  label: "JFrog Artifactory API key",
  prefixes: ["AKCp"],
  pattern: /AKCp[A-Za-z0-9]{69}/y,
  validate: (value) => isPlausibleSecret(value.slice(4), { minEntropy: 4.5 }),
  examples: () =>
    tokenExamples(token, "ARTIFACTORY_API_KEY", [
      `AKCpXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
