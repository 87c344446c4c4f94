import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Doppler service token: `dp.st.` + optional config slug and `.` + 40 to 44 alphanumerics.
 * Format: Doppler docs, "Token formats" (https://docs.doppler.com/reference/auth-token-formats).
 */
const token = (seed: number): string => `dp.st.${randomChars(43, seed)}`;

const rule: Rule = {
  id: "doppler-service-token",
  label: "Doppler service token",
  prefixes: ["dp.st."],
  pattern: /dp\.st\.(?:[a-z0-9_-]{1,35}\.)?[A-Za-z0-9]{40,44}/y,
  validate: (value) => isPlausibleSecret(value.slice(value.lastIndexOf(".") + 1)),
  examples: () => ({
    positive: [
      `DOPPLER_TOKEN=${token(1)}`,
      `{"token": "${token(2)}"}`,
      `export DOPPLER_TOKEN='${token(5)}'`,
    ],
    negative: [
      `dp.st.XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`, // placeholder: one repeated character
      `dp.st.${randomChars(39, 3)}`, // truncated: 39 characters, below the minimum of 40
      `x${token(4)}`, // prefix glued to the end of a longer word
      `dp.st.prd.${"X".repeat(43)}`, // placeholder after the config name
    ],
  }),
};
export default rule;
