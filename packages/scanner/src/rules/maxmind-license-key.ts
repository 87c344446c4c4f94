import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * MaxMind license key (GeoIP/GeoLite downloads): 6 base62 + `_` + 29 base62 + the suffix `_mmk`
 * (40 characters). The distinctive literal is the suffix: the engine finds `_mmk` and a lookbehind
 * checks the 36 characters before it; the reported value is those 36 characters.
 * Format: MaxMind support, "License key format" (new keys end in `_mmk`,
 * https://support.maxmind.com/hc/en-us/articles/4407111582235-Generate-a-License-Key); gitleaks rule
 * `maxmind-license-key`.
 */
const key = (seed: number): string => `${randomChars(6, seed)}_${randomChars(29, seed + 1)}_mmk`;

const rule: Rule = {
  id: "maxmind-license-key",
  label: "MaxMind license key",
  prefixes: ["_mmk"],
  pattern: /(?<=(?<lead>(?<body>[A-Za-z0-9]{6}_[A-Za-z0-9]{29})))_mmk/y,
  validate: (value) => isPlausibleSecret(value.replace("_", "")),
  examples: () => ({
    positive: [`MAXMIND_LICENSE_KEY=${key(1)}`, `GeoIP.conf: LicenseKey ${key(3)}`],
    negative: [
      `MAXMIND_LICENSE_KEY=XXXXXX_${"X".repeat(29)}_mmk`, // placeholder
      `MAXMIND_LICENSE_KEY=${key(5).slice(1)}`, // truncated: 5 characters before the first _
      `x_${key(7)}`, // glued to the end of a longer word
      `${key(9)}x`, // suffix followed by more characters
    ],
  }),
};
export default rule;
