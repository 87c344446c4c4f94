import { ALPHABETS, randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Sidekiq Pro/Enterprise gem server credentials in Bundler's environment variable
 * `BUNDLE_ENTERPRISE__CONTRIBSYS__COM` or `BUNDLE_GEMS__CONTRIBSYS__COM` (value `user:password`, 8 + 8
 * hex). The variable name is the distinctive part; only the value is reported.
 * Format: Sidekiq wiki, "Sidekiq Pro/Enterprise installation" (https://github.com/sidekiq/sidekiq/wiki/Pro-Installation);
 * gitleaks rule `sidekiq-secret`.
 */
const cred = (seed: number): string => `${randomChars(8, seed, ALPHABETS.hex)}:${randomChars(8, seed + 1, ALPHABETS.hex)}`;

const rule: Rule = {
  id: "sidekiq-secret",
  label: "Sidekiq Pro/Enterprise gem server credentials",
  prefixes: ["BUNDLE_ENTERPRISE__CONTRIBSYS__COM", "BUNDLE_GEMS__CONTRIBSYS__COM"],
  pattern:
    /BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM[ \t]{0,8}[:=][ \t]{0,8}["']?(?<secret>[a-f0-9]{8}:[a-f0-9]{8})/y,
  // Only placeholder words, runs and sequences: 16 random hex characters often score below 3 bits of entropy.
  validate: (value) => isPlausibleSecret(value.replace(":", ""), { minEntropy: 2 }),
  examples: () => ({
    positive: [
      `export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=${cred(1)}`,
      `BUNDLE_GEMS__CONTRIBSYS__COM: "${cred(3)}"`,
      `export BUNDLE_ENTERPRISE__CONTRIBSYS__COM = "${cred(5)}" && bundle install`,
    ],
    negative: [
      "export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=00000000:00000000", // placeholder: one repeated character
      `BUNDLE_GEMS__CONTRIBSYS__COM=${cred(7).slice(0, -1)}`, // truncated
      `BUNDLE_GEMS__CONTRIBSYS__COM=\${SIDEKIQ_CREDENTIALS}`, // a variable reference
    ],
  }),
};
export default rule;
