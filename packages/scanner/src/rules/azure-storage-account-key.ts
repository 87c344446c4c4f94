import { createHash } from "node:crypto";
import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * Azure Storage account key in a connection string: `AccountKey=` + 86 base64 characters + `==`
 * (a 512-bit key). The Azurite/storage-emulator development key, which Microsoft publishes, is
 * not reported (compared by SHA-256 so the value is not repeated here).
 * Format: Azure Storage docs, "Configure Azure Storage connection strings"
 * (https://learn.microsoft.com/en-us/azure/storage/common/storage-configure-connection-string).
 */
const EMULATOR_KEY_SHA256 = "0011cc25eb4320717494d2703e8cba85743e71b500283c21c8b88147992f9059";
const key = (seed: number): string => `${randomChars(86, seed, ALPHABETS.base64)}==`;
const isEmulatorKey = (value: string): boolean =>
  createHash("sha256").update(value).digest("hex") === EMULATOR_KEY_SHA256;

const rule: Rule = {
  id: "azure-storage-account-key",
  label: "Azure Storage account key",
  prefixes: ["AccountKey="],
  pattern: /AccountKey=(?<secret>[A-Za-z0-9+/]{86}==)/y,
  validate: (value) => !isEmulatorKey(value) && isPlausibleSecret(value.slice(0, 86), { minEntropy: 4.5 }),
  examples: () => ({
    positive: [
      `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${key(1)};EndpointSuffix=core.windows.net`,
      `"AzureWebJobsStorage": "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${key(2)}"`,
    ],
    negative: [
      `AccountKey=${"A".repeat(86)}==`, // placeholder: one repeated character
      "AccountKey=<storage-account-key>", // placeholder
      `AccountKey=${key(3).slice(0, 60)}`, // truncated
    ],
  }),
};
export default rule;
