import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * crates.io API token: `cio` + 32 alphanumerics. The prefix is short, so the body must mix digits,
 * upper and lower case and have >= 3.5 bits/char of entropy.
 * Format: crates.io source, `src/util/token.rs` (`TOKEN_PREFIX = "cio"`, 32 random alphanumerics).
 */
const token = (seed: number): string => `cio${randomChars(32, seed)}`;

const rule: Rule = {
  id: "crates-io-api-token",
  label: "crates.io API token",
  prefixes: ["cio"],
  pattern: /cio[A-Za-z0-9]{32}/y,
  validate: (value) => /[0-9]/.test(value.slice(3)) && /[A-Z]/.test(value.slice(3)) && /[a-z]/.test(value.slice(3)) && isPlausibleSecret(value.slice(3), { minEntropy: 3.5 }),
  examples: () => ({
    positive: [
      `CARGO_REGISTRY_TOKEN=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export CARGO_REGISTRY_TOKEN='${token(5)}'`,
    ],
    negative: [
      `cioXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      token(3).slice(0, -1), // truncated: one character short
      `x${token(4)}`, // prefix glued to the end of a longer word
      `cio${"abcdefghijklmnopqrstuvwxyzabcdef"}`, // lower-case letters only: not a generated token
    ],
  }),
};
export default rule;
