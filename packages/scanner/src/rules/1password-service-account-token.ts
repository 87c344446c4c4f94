import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isBase64JsonObject } from "../rule-helpers/base64-json.js";

/**
 * 1Password service account token: `ops_` + base64 of a JSON object (sign-in address, user auth,
 * email, key material), 250 characters or more. 1Password developer docs, "Service accounts"
 * (https://developer.1password.com/docs/service-accounts/); gitleaks
 * `1password-service-account-token`. The validator decodes the head and requires a JSON object.
 */
const rule: Rule = {
  id: "1password-service-account-token",
  label: "1Password service account token",
  prefixes: ["ops_eyJ"],
  pattern: /ops_(?<body>eyJ[A-Za-z0-9+/_-]{250,4000}={0,3})/y,
  validate: (v) => isBase64JsonObject(v, [], 120),
  examples: () => {
    const token = (seed: number) =>
      Buffer.from(
        JSON.stringify({
          signInAddress: "my.1password.com",
          userAuth: { method: "SRPg-4096", alg: "PBES2g-HS256", iterations: 650000, salt: randomChars(22, seed, ALPHABETS.base64url) },
          email: `${randomChars(12, seed + 1, ALPHABETS.lowerAlnum)}@1passwordserviceaccounts.com`,
          srpX: randomChars(64, seed + 2, ALPHABETS.hex),
          muk: { alg: "A256GCM", ext: true, k: randomChars(43, seed + 3, ALPHABETS.base64url), key_ops: ["encrypt", "decrypt"], kty: "oct", kid: "mp" },
        }),
      ).toString("base64");
    return {
      positive: [`export OP_SERVICE_ACCOUNT_TOKEN=ops_${token(851)}`, `"sourceContent": "ops_${token(856)}"`],
      negative: [
        `ops_eyJ${"x".repeat(300)}`, // placeholder
        "fn::secret: ops_eyJzaWduSW5B..[Redacted]", // redacted
        `ops_DUMMY${token(861).slice(5)}`, // not base64 JSON
      ],
    };
  },
};
export default rule;
