import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * PyPI API token: `pypi-` + a base64url macaroon whose first bytes encode the location `pypi.org`,
 * so it always starts `pypi-AgEIcHlwaS5vcmc`, then 50 to 1000 more base64url characters.
 * Format: PyPI help, "API tokens" (https://pypi.org/help/#apitoken); gitleaks rule `pypi-upload-token`.
 */
const token = (seed: number): string => `pypi-AgEIcHlwaS5vcmc${randomChars(100, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "pypi-upload-token",
  label: "PyPI API token",
  prefixes: ["pypi-AgEIcHlwaS5vcmc"],
  pattern: /pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,1000}/y,
  validate: (value) => isPlausibleSecret(value.slice(19), { maxRun: 12 }),
  examples: () =>
    tokenExamples(token, "TWINE_PASSWORD", [
      `pypi-AgEIcHlwaS5vcmcXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `pypi-AgEIcHlwaS5vcmc${randomChars(49, 3)}`, // truncated: 49 characters after the fixed header
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
