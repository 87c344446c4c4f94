import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Microsoft Entra ID (Azure AD) application client secret: 3 characters of `[A-Za-z0-9_~.]`, a
 * digit, `Q~`, then 31 to 34 characters of `[A-Za-z0-9_~.-]` (40 in all for current secrets).
 * The literal prefix `Q~` sits 4 characters into the secret: the pattern starts at `Q~` and its
 * leading lookbehind captures the 4 characters before it as the token's `lead` (the finding starts there).
 * Format: Microsoft identity platform, "Add credentials: client secret"
 * (https://learn.microsoft.com/en-us/entra/identity-platform/how-to-add-credentials); the `Q~`
 * marker is described in Microsoft's "Security Utilities" identifiable-secrets docs; gitleaks rule
 * `azure-ad-client-secret`.
 */
const SECRET_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~.-";
const secret = (seed: number): string =>
  `${randomChars(3, seed)}${randomChars(1, seed + 1, "0123456789")}Q~${randomChars(34, seed + 2, SECRET_CHARS)}`;

const rule: Rule = {
  id: "azure-ad-client-secret",
  label: "Azure AD (Entra ID) client secret",
  prefixes: ["Q~"],
  pattern:
    /(?<=(?<lead>[A-Za-z0-9_~.]{3}[0-9]))Q~(?<body>[A-Za-z0-9_~.-]{31,34})/y,
  validate: (value) => isPlausibleSecret(value),
  examples: () => ({
    positive: [`client_secret=${secret(1)}`, `"CLIENT_SECRET": "${secret(4)}"`, `AZURE_CLIENT_SECRET='${secret(7)}'`],
    negative: [
      "client_secret=bP88Q~xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", // placeholder: one repeated character
      `client_secret=${secret(10).slice(0, 34)}`, // truncated: 28 characters after Q~
      `xyz${secret(13)}`, // glued to the end of a longer word
    ],
  }),
};
export default rule;
