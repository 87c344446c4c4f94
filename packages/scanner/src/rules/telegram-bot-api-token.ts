import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Telegram Bot API token: `<bot id digits>:AA` + 33 base64url characters (the 35-character secret
 * after the colon begins with `AA`). Telegram Bot API docs, "Authorizing your bot"
 * (https://core.telegram.org/bots/api#authorizing-your-bot); gitleaks `telegram-bot-api-token`.
 * The prefix `:AA` sits after the (public) bot id, which the lookbehind checks; the finding covers
 * the secret part from the colon on.
 */
const rule: Rule = {
  id: "telegram-bot-api-token",
  label: "Telegram bot API token",
  prefixes: [":AA"],
  pattern: /(?<=(?<lead>\d{6,12})):(?<body>AA[A-Za-z0-9_-]{33})/y,
  validate: (v) => looksRandom(v.slice(2)),
  examples: () => ({
    positive: [
      `TELEGRAM_BOT_TOKEN=${randomChars(10, 131, ALPHABETS.digits)}:AA${randomChars(33, 132, ALPHABETS.base64url)}`,
      `bot = Bot("${randomChars(9, 133, ALPHABETS.digits)}:AA${randomChars(33, 134, ALPHABETS.base64url)}")`,
    ],
    negative: [
      "123456789:AAxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", // placeholder
      `${randomChars(10, 135, ALPHABETS.digits)}:AA${randomChars(20, 136, ALPHABETS.base64url)}`, // truncated
      `12:30:AA${randomChars(33, 137, ALPHABETS.base64url)}`, // time of day, no bot id
    ],
  }),
};
export default rule;
