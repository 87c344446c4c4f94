import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isBase64JsonObject } from "../rule-helpers/base64-json.js";

/**
 * Grafana API key (legacy, before service accounts): base64 of `{"k":secret,"n":name,"id":org}`,
 * which always begins `eyJrIjoi`. Grafana docs, "API keys" (deprecated;
 * https://grafana.com/docs/grafana/latest/administration/api-keys/); gitleaks `grafana-api-key`.
 * The validator decodes it and requires the `k` and `n` keys.
 */
const rule: Rule = {
  id: "grafana-api-key",
  label: "Grafana API key (legacy)",
  prefixes: ["eyJrIjoi"],
  pattern: /eyJrIjoi[A-Za-z0-9+/]{50,400}={0,2}/y,
  validate: (v) => isBase64JsonObject(v, ["k", "n"]),
  examples: () => {
    const key = (seed: number) => Buffer.from(JSON.stringify({ k: randomChars(32, seed), n: "deploy", id: 1 })).toString("base64");
    return {
      positive: [`GRAFANA_API_KEY=${key(651)}`, `Authorization: Bearer ${key(652)}`],
      negative: [
        `eyJrIjoi${"x".repeat(60)}`, // placeholder, not JSON
        Buffer.from(JSON.stringify({ k: "short" })).toString("base64"), // too short and no name
      ],
    };
  },
};
export default rule;
