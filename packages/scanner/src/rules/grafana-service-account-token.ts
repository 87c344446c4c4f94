import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Grafana service account token: `glsa_` + 32 base62 + `_` + 8 hex (checksum). Grafana docs,
 * "Service account tokens" (https://grafana.com/docs/grafana/latest/administration/service-accounts/);
 * gitleaks `grafana-service-account-token`.
 */
const rule: Rule = {
  id: "grafana-service-account-token",
  label: "Grafana service account token",
  prefixes: ["glsa_"],
  pattern: /glsa_(?<body>[A-Za-z0-9]{32})_[A-Fa-f0-9]{8}/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `'Authorization': 'Bearer glsa_${randomChars(32, 641)}_${randomChars(8, 642, ALPHABETS.hex)}'`,
      `GRAFANA_SA_TOKEN=glsa_${randomChars(32, 643)}_${randomChars(8, 644, ALPHABETS.hex)}`,
    ],
    negative: [
      "glsa_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX_AAAAAAAA", // placeholder
      `glsa_${randomChars(32, 645)}`, // truncated: no checksum
      `myglsa_${randomChars(32, 646)}_${randomChars(8, 647, ALPHABETS.hex)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
