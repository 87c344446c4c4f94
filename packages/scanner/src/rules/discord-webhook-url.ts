import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Discord webhook URL: `discord.com/api/webhooks/<snowflake id>/<68-character token>` (also on
 * `discordapp.com`, `ptb.`/`canary.` hosts and with `/api/v10/`); anyone holding it can post.
 * Discord developer docs, "Webhook resource" (https://discord.com/developers/docs/resources/webhook).
 */
const rule: Rule = {
  id: "discord-webhook-url",
  label: "Discord webhook URL",
  prefixes: ["discord.com/api/", "discordapp.com/api/"],
  pattern:
    /discord(?:app)?\.com\/api\/(?:v\d{1,2}\/)?webhooks\/\d{17,20}\/(?<body>[A-Za-z0-9_-]{60,80})/y,
  validate: (v) => looksRandom(v),
  examples: () => ({
    positive: [
      `DISCORD_WEBHOOK=https://discord.com/api/webhooks/${randomChars(19, 111, ALPHABETS.digits)}/${randomChars(68, 112, ALPHABETS.base64url)}`,
      `url: "https://discordapp.com/api/webhooks/${randomChars(18, 113, ALPHABETS.digits)}/${randomChars(68, 114, ALPHABETS.base64url)}"`,
    ],
    negative: [
      "https://discord.com/api/webhooks/123456789012345678/your-webhook-token", // placeholder token
      `https://discord.com/api/webhooks/${randomChars(19, 115, ALPHABETS.digits)}/${"x".repeat(68)}`, // placeholder run
      `https://discord.com/api/webhooks/${randomChars(19, 116, ALPHABETS.digits)}`, // no token part
    ],
  }),
};
export default rule;
