import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "./hashing.js";

describe("sha256Hex", () => {
  it("is the hex SHA-256 of the text's UTF-8 bytes, as createHash gives it (stored hashes stay valid)", () => {
    const inputs = ["", "abc", "# Note\n\nRun `npm test`.\n".repeat(40), "Grüße, 東京 😀", "lone \ud800 surrogate", "\u0000\r\n\t"];
    for (const text of inputs) expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
