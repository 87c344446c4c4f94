import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { BODY_BREAK, FIRST_RUN, afterBeginLine, blockBody } from "../rule-helpers/block-lines.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * OpenVPN static key (`--secret`, `tls-auth`, `tls-crypt`): `-----BEGIN OpenVPN Static key V1-----`
 * then 16 lines of 32 hex (2048 bits); at least the first 64 hex digits are matched.
 * Format: OpenVPN manual, "--secret" / "--tls-auth" and `openvpn --genkey` output
 * (https://openvpn.net/community-resources/reference-manual-for-openvpn-2-6/).
 */
const block = (seed: number, nl = "\n"): string => {
  const lines = Array.from({ length: 16 }, (_, i) => randomChars(32, seed + i, ALPHABETS.hex));
  return `-----BEGIN OpenVPN Static key V1-----${nl}${lines.join(nl)}${nl}-----END OpenVPN Static key V1-----`;
};

const rule: Rule = {
  id: "openvpn-static-key",
  label: "OpenVPN static key",
  prefixes: ["-----BEGIN OpenVPN Static key V1-----"],
  pattern:
    new RegExp(String.raw`-----BEGIN OpenVPN Static key V1-----${afterBeginLine(0, false)}(?<secret>[0-9a-fA-F]{${FIRST_RUN}}(?:${BODY_BREAK})?(?:[0-9a-fA-F](?:${BODY_BREAK})?){${64 - FIRST_RUN}})`, "y"),
  fingerprintOf: blockBody,
  validate: (value) => isPlausibleSecret(blockBody(value)),
  examples: () => ({
    positive: [`<tls-auth>\n${block(1)}\n</tls-auth>`, `"ta.key": "${block(20, "\\n")}"`],
    negative: [
      "-----BEGIN OpenVPN Static key V1-----\n...\n-----END OpenVPN Static key V1-----", // placeholder body
      `-----BEGIN OpenVPN Static key V1-----\n${"0".repeat(32)}\n${"0".repeat(32)}\n`, // placeholder: one repeated digit
    ],
  }),
};
export default rule;
