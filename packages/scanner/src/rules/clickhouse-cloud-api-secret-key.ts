import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { hasMixedCase } from "../rule-helpers/entropy.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * ClickHouse Cloud API key secret: `4b1d` + 38 base62 characters (42 in all), shown once when an API
 * key is created in the ClickHouse Cloud console (the key id is a separate, non-secret value).
 * Format: ClickHouse docs, "Managing API keys" (https://clickhouse.com/docs/cloud/manage/openapi);
 * gitleaks rule `clickhouse-cloud-api-secret-key`. The body must mix upper and lower case, so a hex
 * digest that happens to start with `4b1d` is not reported.
 */
const secret = (seed: number): string => `4b1d${randomChars(38, seed)}`;

const rule: Rule = {
  id: "clickhouse-cloud-api-secret-key",
  label: "ClickHouse Cloud API key secret",
  prefixes: ["4b1d"],
  pattern: /4b1d[A-Za-z0-9]{38}/y,
  validate: (value) => hasMixedCase(value.slice(4), 3) && isPlausibleSecret(value.slice(4)),
  examples: () => ({
    positive: [`CLICKHOUSE_KEY_SECRET=${secret(1)}`, `{"key_secret": "${secret(2)}"}`],
    negative: [
      `key = 4b1d${"X".repeat(38)}`, // placeholder: one repeated character
      `sha: 4b1d${randomChars(38, 3, "0123456789abcdef")}`, // lower-case hex digest, not a key
      `4b1d${randomChars(37, 4)}`, // truncated: 41 characters
      `x${secret(5)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
