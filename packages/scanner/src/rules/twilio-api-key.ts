import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { pairRule } from "../rule-helpers/key-pair.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Twilio API key secret next to its SID: an API key SID (`SK` + 32 lower-case hex), then, on the
 * same line or one of the next 4 (each read up to 160 characters), the key's secret: a run of
 * exactly 32 alphanumerics; or, when none follows, the nearest such run before it within the same
 * distance (`TWILIO_API_SECRET=` written first). The SID alone only names the key (gitleaks reports it; so much of
 * hex-looking text starts with `SK` that we do not); next to it the secret is the credential, and
 * the finding is the secret. Values without both letters and digits are not reported.
 * Format: Twilio docs, "API keys" (https://www.twilio.com/docs/iam/api-keys): SID `SK…`, secret
 * shown once; gitleaks rule `twilio-api-key` (the SID).
 */
const HEX = "0123456789abcdef";
const sid = (seed: number): string => `SK${randomChars(32, seed, HEX)}`;
const secret = (seed: number): string => randomChars(32, seed);

const rule: Rule = {
  id: "twilio-api-key",
  label: "Twilio API key secret (next to its SID)",
  prefixes: ["SK"],
  ...pairRule("SK[0-9a-f]{32}", "[A-Za-z0-9]", 32),
  validate: (value) => /[a-zA-Z]/.test(value) && /[0-9]/.test(value) && !/^[0-9a-f]+$/.test(value) && isPlausibleSecret(value),
  examples: () => ({
    positive: [
      `TWILIO_API_KEY=${sid(1)}\nTWILIO_API_SECRET=${secret(2)}\n`,
      `client = Client("${sid(3)}", "${secret(4)}", account_sid)`,
      `{\n  "sid": "${sid(5)}",\n  "friendly_name": "ci",\n  "secret": "${secret(6)}"\n}`,
      `TWILIO_API_SECRET=${secret(13)}\nTWILIO_API_KEY=${sid(14)}\n`, // secret first
    ],
    negative: [
      `TWILIO_API_KEY=${sid(7)}\n`, // the SID alone
      `TWILIO_API_KEY=${sid(8)}\n\n\n\n\n\nTWILIO_API_SECRET=${secret(9)}`, // too far: 6 lines apart
      `TWILIO_API_KEY=${sid(10)} TWILIO_API_SECRET=${"x".repeat(32)}`, // placeholder secret
      `key ${sid(11)} sha ${randomChars(32, 12, HEX)}`, // a hex digest, not a secret
      `TWILIO_API_SECRET=${secret(15)}\n\n\n\n\n\nTWILIO_API_KEY=${sid(16)}`, // too far before it
    ],
  }),
};
export default rule;
