import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Google Cloud / Google Maps / Firebase API key: `AIza` + 35 characters of `[A-Za-z0-9_-]`.
 * Format: Google Cloud docs, "Manage API keys" (https://cloud.google.com/docs/authentication/api-keys);
 * gitleaks rule `gcp-api-key`.
 */
const token = (seed: number): string => `AIza${randomChars(35, seed, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "gcp-api-key",
  label: "Google API key",
  prefixes: ["AIza"],
  pattern: /AIza[A-Za-z0-9_-]{35}/y,
  validate: (value) => isPlausibleSecret(value.slice(4), { minEntropy: 3.5 }),
  examples: () => ({
    positive: [`GOOGLE_API_KEY=${token(1)}`, `<script src="https://maps.googleapis.com/maps/api/js?key=${token(2)}"></script>`],
    negative: [
      'apiKey: "AIzaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"', // placeholder: one repeated character
      "AIzaSyabcdefghijklmnopqrstuvwxyz1234567", // placeholder: alphabet sequence
      `AIza${randomChars(42, 3)}`, // too long: 42 characters after the prefix
      "AIZASYCO2CXRMC9ELSKLHLHRMBSWDEVEDZTLO2O", // upper-cased text, not the case-sensitive prefix
    ],
  }),
};
export default rule;
