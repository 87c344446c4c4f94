import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * OpenShift OAuth access token: `sha256~` + 43 base64url characters (OpenShift 4.6+).
 * Format: OpenShift docs, "Understanding authentication" / OAuth access tokens
 * (https://docs.openshift.com/container-platform/latest/authentication/understanding-authentication.html);
 * gitleaks rule `openshift-user-token`.
 */
const token = (seed: number): string => `sha256~${randomChars(43, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "openshift-user-token",
  label: "OpenShift user token",
  prefixes: ["sha256~"],
  pattern: /sha256~[A-Za-z0-9_-]{43}/y,
  validate: (value) => isPlausibleSecret(value.slice(7), { minEntropy: 3.5 }),
  examples: () => ({
    positive: [
      `Authorization: Bearer ${token(1)}`,
      `oc login --token=${token(2)} --server=https://api.example.com:6443`,
    ],
    negative: [
      "sha256~XXXXXXXXXX_PUT_YOUR_TOKEN_HERE_XXXXXXXXXXXX", // placeholder words
      "oc login --token=sha256~_xxxxxx_xxxxxxxxxxxxxxxxxxxxxx-xxxxxxxxxx-X", // placeholder: runs of x
      token(3).slice(0, -1), // truncated: 42 characters
    ],
  }),
};
export default rule;
