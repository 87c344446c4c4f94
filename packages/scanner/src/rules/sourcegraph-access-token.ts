import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Sourcegraph access token: `sgp_` + 40 hex (legacy prefixed), `sgp_<16 hex instance id>_` + 40 hex,
 * or `sgp_local_` + 40 hex. Unprefixed 40-hex tokens are out of scope (no prefix).
 * Format: Sourcegraph docs, "Access tokens" (https://sourcegraph.com/docs/cli/how-tos/creating_an_access_token);
 * gitleaks rule `sourcegraph-access-token`.
 */
const HEXMIX = "0123456789abcdefABCDEF";
const token = (seed: number, middle = ""): string => `sgp_${middle}${randomChars(40, seed, HEXMIX)}`;

const rule: Rule = {
  id: "sourcegraph-access-token",
  label: "Sourcegraph access token",
  prefixes: ["sgp_"],
  pattern: /sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}/y,
  validate: (value) => isPlausibleSecret(value.slice(-40)),
  examples: () => ({
    positive: [
      `SRC_ACCESS_TOKEN=${token(1)}`,
      `token: ${token(2, `${randomChars(16, 3, ALPHABETS.hex)}_`)}`,
      `"${token(4, "local_")}"`,
    ],
    negative: [
      "sgp_5555555dAAAAA7777777CcccCFaaaaaaaaaaaaaa", // placeholder: long runs of one character
      "sgp_652d9a2e48FC7E!FcDbEA1BC2E2A6CE23cFe7F7D", // not hex: contains "!"
      `sgp_${randomChars(20, 5, ALPHABETS.hex)}_${randomChars(40, 6, ALPHABETS.hex)}`, // instance id of 20, not 16
    ],
  }),
};
export default rule;
