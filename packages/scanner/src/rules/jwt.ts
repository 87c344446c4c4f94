import { createHmac } from "node:crypto";
import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { decodeBase64, isBase64JsonObject } from "../rule-helpers/base64-json.js";

/**
 * JSON Web Token (JWS compact form): base64url header `eyJ…` + `.` + base64url payload `eyJ…` + `.`
 * + optional signature. RFC 7519 (https://www.rfc-editor.org/rfc/rfc7519) and RFC 7515 §7.1;
 * gitleaks `jwt`. A JWT is usually a bearer credential (session, service-role or API token).
 * To stay high-confidence the validator decodes both parts: the header must be a JSON object naming
 * `alg` or `typ`, the payload must start as a JSON object. Base64 JSON without the two-part shape
 * (Grafana, 1Password, Sentry payloads) is left to those vendors' rules.
 */
/** jwt.io's sample token, built as jwt.io signs it (HS256 with the secret "your-256-bit-secret"); its signature starts `SflKxwRJ`. */
function jwtIoSample(): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const signed = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: "1234567890", name: "John Doe", iat: 1516239022 })}`;
  return `${signed}.${createHmac("sha256", "your-256-bit-secret").update(signed).digest("base64url")}`;
}

const rule: Rule = {
  id: "jwt",
  label: "JSON Web Token",
  prefixes: ["eyJ"],
  pattern:
    /eyJ[A-Za-z0-9_-]{10,2000}\.eyJ[A-Za-z0-9_-]{10,8000}\.(?:[A-Za-z0-9_-]{10,1000}={0,2})?/y,
  validate: (v) => {
    const [header = "", payload = ""] = v.split(".");
    return (
      isBase64JsonObject(header) && /"(?:alg|typ)"/.test(decodeBase64(header)) && isBase64JsonObject(payload, [], 64)
    );
  },
  examples: () => {
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const jwt = (seed: number) =>
      `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: randomChars(12, seed, ALPHABETS.lowerAlnum), iat: 1700000000 })}.${randomChars(43, seed + 1, ALPHABETS.base64url)}`;
    return {
      positive: [`Authorization: Bearer ${jwt(801)}`, `SUPABASE_SERVICE_ROLE_KEY=${jwt(803)}`],
      negative: [
        `${b64({ alg: "HS256" })}`, // header alone
        `eyJ${"x".repeat(20)}.eyJ${"x".repeat(20)}.${"x".repeat(20)}`, // not base64 JSON
        `${b64({ foo: "bar", baz: 1 })}.${b64({ sub: "x1" })}.${randomChars(43, 805, ALPHABETS.base64url)}`, // header without alg/typ
        `token: ${jwtIoSample()}`, // jwt.io's documentation sample (a known example, by its SHA-256)
      ],
    };
  },
};
export default rule;
