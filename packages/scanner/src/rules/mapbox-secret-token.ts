import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isBase64JsonObject } from "../rule-helpers/base64-json.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Mapbox secret access token: `sk.` + base64url JSON `{"u":user,"a":token id}` + `.` + 22-character
 * signature. Public tokens (`pk.`) are meant for browsers and are not matched. Mapbox docs, "Access
 * tokens: token format" (https://docs.mapbox.com/help/dive-deeper/access-tokens/).
 */
const rule: Rule = {
  id: "mapbox-secret-token",
  label: "Mapbox secret access token",
  prefixes: ["sk.eyJ"],
  pattern: /sk\.(?<body>eyJ[A-Za-z0-9_-]{10,300}\.[A-Za-z0-9_-]{22})/y,
  validate: (v) => {
    const [payload = "", sig = ""] = v.split(".");
    return isBase64JsonObject(payload, ["u"]) && looksRandom(sig);
  },
  examples: () => {
    const payload = (seed: number) =>
      Buffer.from(JSON.stringify({ u: "acme", a: randomChars(25, seed, ALPHABETS.lowerAlnum) })).toString("base64url");
    return {
      positive: [`MAPBOX_SECRET_TOKEN=sk.${payload(771)}.${randomChars(22, 772, ALPHABETS.base64url)}`, `mapbox.token = "sk.${payload(773)}.${randomChars(22, 774, ALPHABETS.base64url)}"`],
      negative: [
        `pk.${payload(775)}.${randomChars(22, 776, ALPHABETS.base64url)}`, // public token
        `sk.eyJ${"x".repeat(30)}.${randomChars(22, 777, ALPHABETS.base64url)}`, // not JSON
        `sk.${payload(778)}`, // truncated: no signature
      ],
    };
  },
};
export default rule;
