import { randomChars, ALPHABETS } from "../fakes.js";
import { crc32 } from "../checksums.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Atlassian API token (Jira, Confluence, Bitbucket Cloud): `ATATT3` + base64url body, `=`, then 8
 * upper-case hex = CRC-32 of everything before them (`ATATT3…=`); 192 characters in all. A token
 * whose checksum fails is not reported. (Verified against the real-format sample in the gitleaks
 * test suite.) Format: Atlassian support, "Manage API tokens for your Atlassian account"
 * (https://support.atlassian.com/atlassian-account/docs/manage-api-tokens-for-your-atlassian-account/);
 * gitleaks rule `atlassian-api-token` (its prefixed part).
 */
const withChecksum = (head: string): string => head + crc32(head).toString(16).toUpperCase().padStart(8, "0");
const token = (seed: number): string => withChecksum(`ATATT3${randomChars(177, seed, ALPHABETS.base64url)}=`);

const rule: Rule = {
  id: "atlassian-api-token",
  label: "Atlassian API token",
  prefixes: ["ATATT3"],
  pattern: /ATATT3[A-Za-z0-9_=-]{186}/y,
  checksum: true,
  validate: (value) => {
    const head = value.slice(0, -8);
    return (
      head.endsWith("=") &&
      /^[0-9A-F]{8}$/.test(value.slice(-8)) &&
      withChecksum(head) === value &&
      isPlausibleSecret(head.slice(6, -1))
    );
  },
  examples: () => ({
    positive: [`JIRA_API_TOKEN=${token(1)}`, `confluence_token: "${token(2)}"`],
    negative: [
      `ATATT3${"x".repeat(177)}=${"0".repeat(8)}`, // placeholder: one repeated character
      token(3).slice(0, -1) + (token(3).endsWith("A") ? "B" : "A"), // wrong checksum
      `${token(4).slice(0, 100)}`, // truncated
    ],
  }),
};
export default rule;
