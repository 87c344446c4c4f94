import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Adafruit IO key: `aio_` + 28 characters of `[A-Za-z0-9]`. Adafruit IO docs, "Authentication" (https://io.adafruit.com/api/docs/#authentication).
 */
const rule: Rule = {
  id: "adafruit-io-key",
  label: "Adafruit IO key",
  prefixes: ["aio_"],
  pattern: /aio_(?<body>[A-Za-z0-9]{28})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [`KEY=aio_${randomChars(28, 7051, ALPHABETS.base62)}`, `"token": "aio_${randomChars(28, 7052, ALPHABETS.base62)}"`],
    negative: [
      `aio_${"0".repeat(28)}`, // zeroed placeholder
      `aio_${randomChars(28 - 6, 7053, ALPHABETS.base62)}`, // truncated
      `aio_${randomChars(28 + 4, 7054, ALPHABETS.base62)}`, // too long: part of something else
      `wordaio_${randomChars(28, 7055, ALPHABETS.base62)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
