import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";

const uuid = (seed: number) =>
  [8, 4, 4, 4, 12].map((n, i) => randomChars(n, seed * 10 + i, ALPHABETS.hex)).join("-");

/**
 * Axiom API token: `xaat-` + UUID. Axiom docs, "API tokens" (https://axiom.co/docs/reference/tokens).
 */
const rule: Rule = {
  id: "axiom-api-token",
  label: "Axiom API token",
  prefixes: ["xaat-"],
  pattern: /xaat-(?<body>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/y,
  validate: (v) => !/^[0-]+$/.test(v),
  examples: () => ({
    positive: [`AXIOM_TOKEN=xaat-${uuid(3451)}`, `Authorization: Bearer xaat-${uuid(3452)}`],
    negative: [
      "xaat-00000000-0000-0000-0000-000000000000", // zeroed placeholder
      "xaat-your-token-here", // placeholder
      `xaat-${randomChars(8, 3453, ALPHABETS.hex)}`, // truncated
    ],
  }),
};
export default rule;
