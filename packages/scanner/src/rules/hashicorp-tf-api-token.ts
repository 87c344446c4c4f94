import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * HCP Terraform / Terraform Enterprise API token: 14 alphanumerics + `.atlasv1.` + 60 to 70
 * characters of `[A-Za-z0-9_=-]`. The literal `.atlasv1.` is the prefilter; a lookbehind checks the
 * 14 characters before it (the finding starts at `atlasv1`).
 * Format: HCP Terraform docs, "API tokens" (https://developer.hashicorp.com/terraform/cloud-docs/users-teams-organizations/api-tokens);
 * gitleaks rule `hashicorp-tf-api-token`.
 */
const token = (seed: number): string =>
  `${randomChars(14, seed)}.atlasv1.${randomChars(67, seed + 1, ALPHABETS.base64url)}`;

const rule: Rule = {
  id: "hashicorp-tf-api-token",
  label: "HCP Terraform API token",
  prefixes: [".atlasv1."],
  pattern: /(?<=(?<lead>[A-Za-z0-9]{14}))\.atlasv1\.(?<body>[A-Za-z0-9_=-]{60,70})/y,
  validate: (value) => isPlausibleSecret(value, { minEntropy: 3.5 }),
  examples: () => ({
    positive: [`token = "${token(1)}"`, `TF_TOKEN_app_terraform_io=${token(2)}`],
    negative: [
      `token = "xxxxxxxxxxxxxx.atlasv1.${"x".repeat(67)}"`, // placeholder: one repeated character
      `token = "${token(3).slice(0, 70)}"`, // truncated: 47 characters after atlasv1
      `token = "${randomChars(10, 4)}.atlasv1.${randomChars(67, 5)}"`, // only 10 characters before .atlasv1.
    ],
  }),
};
export default rule;
