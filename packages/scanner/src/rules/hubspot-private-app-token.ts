import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";

const uuid = (seed: number) =>
  [8, 4, 4, 4, 12].map((n, i) => randomChars(n, seed * 10 + i, ALPHABETS.hex)).join("-");

/**
 * HubSpot private app access token: `pat-` + data-centre region (`na1`, `eu1`, `ap1`, …) + `-` + UUID.
 * HubSpot developer docs, "Private apps" (https://developers.hubspot.com/docs/api/private-apps).
 * (Legacy HubSpot API keys are bare UUIDs and are not matched.)
 */
const rule: Rule = {
  id: "hubspot-private-app-token",
  label: "HubSpot private app access token",
  prefixes: ["pat-"],
  pattern: /pat-[a-z]{2}\d-(?<body>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/y,
  validate: (v) => !/^[0-]+$/.test(v),
  examples: () => ({
    positive: [`HUBSPOT_ACCESS_TOKEN=pat-na1-${uuid(87)}`, `Authorization: Bearer pat-eu1-${uuid(88)}`],
    negative: [
      "pat-na1-00000000-0000-0000-0000-000000000000", // zeroed placeholder
      "pat-na1-your-access-token", // placeholder
      `spat-na1-${uuid(89)}`, // prefix glued inside a word
    ],
  }),
};
export default rule;
