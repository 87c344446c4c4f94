import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isBase64JsonObject } from "../rule-helpers/base64-json.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Sentry organization auth token: `sntrys_` + base64 of a JSON object (`{"iat":…,"url":…,
 * "region_url":…,"org":…}`) + `_` + 43-character base64 secret. Sentry docs, "Organization tokens"
 * (https://docs.sentry.io/account/auth-tokens/#organization-auth-tokens); gitleaks `sentry-org-token`.
 * The validator decodes the JSON part and requires its `iat` key.
 */
const rule: Rule = {
  id: "sentry-org-token",
  label: "Sentry organization auth token",
  prefixes: ["sntrys_eyJ"],
  pattern: /sntrys_(?<body>eyJ[A-Za-z0-9+/]{20,800}={0,2}_[A-Za-z0-9+/]{43})/y,
  validate: (v) => {
    const [payload = "", secret = ""] = v.split("_");
    return isBase64JsonObject(payload, ["iat"]) && looksRandom(secret);
  },
  examples: () => {
    const payload = (org: string) =>
      Buffer.from(JSON.stringify({ iat: 1729278581.08, url: "https://sentry.io", region_url: "https://us.sentry.io", org }))
        .toString("base64")
        .replace(/=+$/, "");
    return {
      positive: [
        `SENTRY_AUTH_TOKEN=sntrys_${payload(randomChars(8, 621, ALPHABETS.lowerAlnum))}_${randomChars(43, 622, ALPHABETS.base64)}`,
        `sentry_token: sntrys_${payload(randomChars(6, 623, ALPHABETS.lowerAlnum))}_${randomChars(43, 624, ALPHABETS.base64)}`,
      ],
      negative: [
        `sntrys_${Buffer.from('{"foo":"bar"}').toString("base64")}_${randomChars(43, 625, ALPHABETS.base64)}`, // JSON without iat
        `sntrys_eyJ${"x".repeat(60)}_${randomChars(43, 626, ALPHABETS.base64)}`, // not JSON
        `sntrys_${payload("acme")}`, // truncated: no secret part
      ],
    };
  },
};
export default rule;
