import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isBase64JsonObject } from "../rule-helpers/base64-json.js";

/**
 * Grafana Cloud access policy / API token: `glc_` + base64 of a JSON object
 * (`{"o":org,"n":name,"k":secret,"m":{"r":region}}`). Grafana docs, "Access policies and tokens"
 * (https://grafana.com/docs/grafana-cloud/account-management/authentication-and-permissions/access-policies/);
 * gitleaks `grafana-cloud-api-token`. The validator decodes the head and requires a JSON object.
 */
const rule: Rule = {
  id: "grafana-cloud-api-token",
  label: "Grafana Cloud API token",
  prefixes: ["glc_eyJ"],
  pattern: /glc_(?<body>eyJ[A-Za-z0-9+/]{29,400}={0,2})/y,
  validate: (v) => isBase64JsonObject(v, [], 64),
  examples: () => {
    const token = (seed: number) =>
      Buffer.from(JSON.stringify({ o: randomChars(6, seed, "0123456789"), n: "stack-write", k: randomChars(24, seed + 1), m: { r: "us" } })).toString("base64");
    return {
      positive: [`loki_key: glc_${token(631)}`, `GRAFANA_TOKEN="glc_${token(633)}"`],
      negative: [
        `glc_${"x".repeat(64)}`, // placeholder
        'API_KEY="glc_111111111111111111111111111111111111111111="', // placeholder
        "static void GLC_CreateLightmapTextureArray(void);", // upper-case identifier
        `glc_eyJ${"x".repeat(40)}`, // not JSON
      ],
    };
  },
};
export default rule;
