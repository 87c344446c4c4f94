import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";

// STUB: checksum validation to be added by the catalog work.
const rule: Rule = {
  id: "github-pat",
  label: "GitHub personal access token (classic)",
  prefixes: ["ghp_"],
  pattern: /(?<![A-Za-z0-9_])ghp_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/y,
  examples: () => ({
    positive: [`GITHUB_TOKEN=ghp_${randomChars(36, 1)}`],
    negative: [`ghp_${"x".repeat(35)}`, `xghp_${randomChars(36, 2)}`],
  }),
};
export default rule;
