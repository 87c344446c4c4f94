import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * 1Password account Secret Key: `A3-` + 6 + (11 | 6-5) + 5 + 5 + 5 upper-case alphanumerics, dash
 * separated; with the account password it decrypts the vault. 1Password support, "About your Secret
 * Key" (https://support.1password.com/secret-key/); gitleaks `1password-secret-key`.
 */
const rule: Rule = {
  id: "1password-secret-key",
  label: "1Password Secret Key",
  prefixes: ["A3-"],
  pattern:
    /A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}/y,
  validate: (v) => looksRandom(v.slice(3).replace(/-/g, ""), 3.5),
  examples: () => {
    const g = (n: number, seed: number) => randomChars(n, seed, ALPHABETS.upperAlnum);
    return {
      positive: [
        `secret key: A3-${g(6, 831)}-${g(6, 832)}-${g(5, 833)}-${g(5, 834)}-${g(5, 835)}-${g(5, 836)}`,
        `A3-${g(6, 837)}-${g(11, 838)}-${g(5, 839)}-${g(5, 840)}-${g(5, 841)}`,
      ],
      negative: [
        "A3-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX", // placeholder
        "A3-xXXXXX-XXXXXX-XXXXX-XXXXX-XXXXX-XXXXX", // placeholder, lower case
        `A3-${g(6, 842)}-${g(6, 843)}-${g(5, 844)}`, // truncated
      ],
    };
  },
};
export default rule;
