import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";
import { tokenExamples } from "../rule-helpers/token-examples.js";

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
  pattern: /oy2[a-z0-9]{43}/y,
  validate: (value) => isPlausibleSecret(value.slice(3), { minEntropy: 3.5 }),
  examples: () =>
    tokenExamples(token, "NUGET_API_KEY", [
      `oy20000000000000000000000000000000000000000000`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      // and the token glued to the end of a longer word (added by tokenExamples)
    ]),
};
export default rule;
