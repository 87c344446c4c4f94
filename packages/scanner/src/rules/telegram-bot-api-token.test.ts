/**
 * Issue 10, a new user's try-out (finding M2): a Telegram bot token is found, whole and at the same
 * place, in the contexts the Bot API docs put it in (the request URLs glue `bot` to it), with another
 * field glued after it, and with its colon percent-encoded in a query string; its near misses are not.
 */
import { describe, expect, it } from "vitest";
import { ALPHABETS, randomChars } from "../fakes.js";
import { scan } from "../scan.js";

const id = randomChars(10, 901, ALPHABETS.digits);
const secret = `AA${randomChars(33, 902, ALPHABETS.base64url)}`;
const token = `${id}:${secret}`;
const bare = scan(token)[0]!.fingerprint;

/** Every finding of `text` (whole catalog) as [rule, offset, end offset, encoding, same fingerprint as the bare token]. */
const found = (text: string) => scan(text).map((f) => [f.ruleId, f.offset, f.endOffset, f.encoding, f.fingerprint === bare]);

describe("telegram-bot-api-token in its contexts", () => {
  it.each([
    ["the Bot API method URL", "https://api.telegram.org/bot", "/sendMessage?chat_id=42"],
    ["the Bot API file URL", "https://api.telegram.org/file/bot", "/photos/file_7.jpg"],
    ["a field glued after it with :", "TG=", ":x"],
    ["a path segment after it", "", "/"],
    ["a sentence end", "token ", "."],
    ["parentheses", "(", ")"],
    ["a query parameter", "?token=", "&x=1"],
  ])("reports the whole token after %s", (_name, pre, post) => {
    expect(found(pre + token + post)).toEqual([["telegram-bot-api-token", pre.length, pre.length + token.length, undefined, true]]);
  });

  it("reports the token whose colon is percent-encoded in a query string, as percent-encoded text", () => {
    for (const colon of ["%3A", "%3a"]) {
      const pre = "https://hooks.internal/relay?chat=42&token=";
      const encoded = `${id}${colon}${secret}`;
      expect(found(`${pre}${encoded}&x=1`), colon).toEqual([["telegram-bot-api-token", pre.length, pre.length + encoded.length, "percent", true]]);
    }
  });

  it.each([
    ["a 36-character secret", `${id}:${secret}Q`],
    ["a 36-character secret in the API URL", `https://api.telegram.org/bot${id}:${secret}Q/getMe`],
    ["a 4-digit bot id", `1234:${secret}`],
    ["a version string", `v1.2.3:${secret}`],
    ["bot inside a longer word", `https://api.telegram.org/robot${id}:${secret}/getMe`],
    ["a 13-digit id after bot", `bot1${"2".repeat(12)}:${secret}`],
  ])("reports nothing for %s", (_name, text) => {
    expect(found(text).filter((f) => f[0] === "telegram-bot-api-token")).toEqual([]);
  });
});
