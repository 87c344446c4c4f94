import type { Rule } from "../rule.js";
// STUB: checksum validation to be added by the catalog work.
export const githubPat: Rule = {
  id: "github-pat",
  label: "GitHub personal access token (classic)",
  prefixes: ["ghp_"],
  pattern: /(?<![A-Za-z0-9_])ghp_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/y,
  examples: { positive: [], negative: [] },
};
