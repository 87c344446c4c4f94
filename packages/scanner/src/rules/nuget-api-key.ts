import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * NuGet.org API key: `oy2` + 43 lowercase alphanumerics (46 in all).
 * Format: NuGet docs, "Scoped API keys" (https://learn.microsoft.com/en-us/nuget/nuget-org/scoped-api-keys); GitHub
 * secret scanning partner pattern `nuget_api_key`.
 */
const token = (seed: number): string => `oy2${randomChars(43, seed, ALPHABETS.lowerAlnum)}`;

const rule: Rule = {
  id: "nuget-api-key",
  label: "NuGet.org API key",
  prefixes: ["oy2"],
  pattern: /(?<![A-Za-z0-9_])oy2[a-z0-9]{43}(?![A-Za-z0-9_])/y,
  validate: (value) => isPlausibleSecret(value.slice(3), { minEntropy: 3.5 }),
  examples: () => ({
    positive: [
      `NUGET_API_KEY=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export NUGET_API_KEY='${token(5)}'`,
    ],
    negative: [
      `oy20000000000000000000000000000000000000000000`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      `x${token(4)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
