import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";

const uuid = (seed: number) =>
  [8, 4, 4, 4, 12].map((n, i) => randomChars(n, seed * 10 + i, ALPHABETS.hex)).join("-");

/**
 * Axiom personal access token: `xapt-` + UUID. Axiom docs, "Personal access tokens" (https://axiom.co/docs/reference/tokens).
 */
const rule: Rule = {
  id: "axiom-personal-token",
  label: "Axiom personal access token",
  prefixes: ["xapt-"],
  pattern: /xapt-(?<body>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/y,
  validate: (v) => !/^[0-]+$/.test(v),
  examples: () => ({
    positive: [`AXIOM_TOKEN=xapt-${uuid(4601)}`, `Authorization: Bearer xapt-${uuid(4602)}`],
    negative: [
      "xapt-00000000-0000-0000-0000-000000000000", // zeroed placeholder
      "xapt-your-token-here", // placeholder
      `xapt-${randomChars(8, 4603, ALPHABETS.hex)}`, // truncated
    ],
  }),
};
export default rule;
