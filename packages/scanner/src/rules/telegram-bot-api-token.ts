import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { looksRandom } from "../rule-helpers/entropy.js";

/**
 * Telegram Bot API token: `<bot id digits>:AA` + 33 base64url characters (the 35-character secret
 * after the colon begins with `AA`). Telegram Bot API docs, "Authorizing your bot"
 * (https://core.telegram.org/bots/api#authorizing-your-bot); gitleaks `telegram-bot-api-token`.
 * The prefix `:AA` sits after the (public) bot id, which the lookbehind checks; the finding covers
 * the whole token, bot id included (its fingerprint is the whole token's).
 *
 * Contexts (issue 10, M2): the docs' request URLs glue `bot` to the bot id,
 * `https://api.telegram.org/bot<token>/getMe` and `https://api.telegram.org/file/bot<token>/<path>`:
 * the `glue` group lets `bot` touch the token (`robot<token>` is still glued to a word). The secret
 * is exactly 35 characters, so a longer run of its alphabet is not a token, but `:` after it starts
 * another field (`<token>:x`, engine/boundaries.ts) and `/`, `.`, `)`, `&` end it. In a query string
 * the colon is often percent-encoded (`token=<id>%3AAA…`): the decode layer reads `%3A`
 * (engine/decode.ts) and reports the token with `encoding: "percent"` (tested in
 * telegram-bot-api-token.test.ts: the examples below are plain, as encoded.test.ts encodes them).
 */
const rule: Rule = {
  id: "telegram-bot-api-token",
  label: "Telegram bot API token",
  prefixes: [":AA"],
  pattern: /(?<=(?<glue>bot)?(?<lead>\d{6,12})):(?<body>AA[A-Za-z0-9_-]{33})/y,
  validate: (v) => looksRandom(v.slice(2)),
  examples: () => {
    const id = randomChars(10, 138, ALPHABETS.digits);
    const secret = `AA${randomChars(33, 139, ALPHABETS.base64url)}`;
    return {
      positive: [
        `TELEGRAM_BOT_TOKEN=${randomChars(10, 131, ALPHABETS.digits)}:AA${randomChars(33, 132, ALPHABETS.base64url)}`,
        `bot = Bot("${randomChars(9, 133, ALPHABETS.digits)}:AA${randomChars(33, 134, ALPHABETS.base64url)}")`,
        `curl https://api.telegram.org/bot${id}:${secret}/sendMessage -d chat_id=42`,
        `wget https://api.telegram.org/file/bot${id}:${secret}/photos/file_7.jpg`,
        `TG=${id}:${secret}:x`, // another field after the token
      ],
      negative: [
        "123456789:AAxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", // placeholder
        `${randomChars(10, 135, ALPHABETS.digits)}:AA${randomChars(20, 136, ALPHABETS.base64url)}`, // truncated
        `12:30:AA${randomChars(33, 137, ALPHABETS.base64url)}`, // time of day, no bot id
        `${id}:${secret}Q`, // a 36-character secret: a longer run of the alphabet
        `1234:${secret}`, // a 4-digit bot id
        `v1.2.3:${secret}`, // a version string, no bot id
        `https://api.telegram.org/robot${id}:${secret}/x`, // `bot` inside a longer word
      ],
    };
  },
};
export default rule;
