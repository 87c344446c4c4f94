import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

/**
 * Adobe OAuth / server-to-server client secret: `p8e-` + 32 alphanumerics.
 * Format: Adobe Developer Console credentials ("Client secret", https://developer.adobe.com/developer-console/docs/guides/credentials/);
 * gitleaks rule `adobe-client-secret`.
 */
const token = (seed: number): string => `p8e-${randomChars(32, seed)}`;

const rule: Rule = {
  id: "adobe-client-secret",
  label: "Adobe client secret",
  prefixes: ["p8e-"],
  pattern: /p8e-[A-Za-z0-9]{32}/y,
  validate: (value) => isPlausibleSecret(value.slice(4)),
  examples: () =>
    tokenExamples(token, "ADOBE_CLIENT_SECRET", [
      `p8e-${"0".repeat(32)}`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
    ]),
};
export default rule;
