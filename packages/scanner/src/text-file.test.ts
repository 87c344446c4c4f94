/** Issue 10 try-out P2: a UTF-8 byte order mark counts as no column, like UTF-16's. */
import { describe, expect, it } from "vitest";
import { decodeUtf16WithBom, fileText } from "./text-file.js";
import { scan } from "./scan.js";
import { fakeGithubPat } from "./testing.js";

describe("fileText", () => {
  it("removes a UTF-8 byte order mark, so a finding's column is the one editors show", () => {
    const line = `T=${fakeGithubPat(7)}\n`;
    for (const bytes of [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(line)]), Buffer.from(`\ufeff${line}`, "utf16le")]) {
      const t = fileText(bytes); // UTF-8 with its mark, then UTF-16LE with its mark (FF FE)
      expect(t.kind === "text" && t.text).toBe(line);
      if (t.kind === "text") expect(scan(t.text)[0]).toMatchObject({ line: 1, column: 3 });
    }
  });

  it("takes FF FE / FE FF data for UTF-16 text only when it decodes to plausible text (try-out F6)", () => {
    const le = (t: string) => Buffer.from(`\ufeff${t}`, "utf16le");
    expect(decodeUtf16WithBom(le("notes\r\n\tütf-16 ✓ 😀\f\x1b[0m\n"))?.text).toBe("notes\r\n\tütf-16 ✓ 😀\f\x1b[0m\n");
    expect(decodeUtf16WithBom(Buffer.from([0xfe, 0xff, 0x00, 0x41]))).toEqual({ text: "A", encoding: "utf-16be" });
    const binary = [
      Buffer.from([0xff, 0xfe, 0x00, 0x62, 0x69]), // odd length
      Buffer.from([0xff, 0xfe, 0x00, 0xd8, 0x41, 0x00]), // a lone high surrogate
      Buffer.from([0xff, 0xfe, 0x41, 0x00, 0x00, 0xdc]), // a lone low surrogate
      Buffer.from([0xff, 0xfe, 0x00, 0xe0, 0x12, 0xf0]), // private-use characters
      Buffer.from([0xff, 0xfe, 0x41, 0x00, 0x03, 0x00]), // a C0 control (ETX)
      Buffer.from([0xfe, 0xff, 0xff, 0xff]), // the noncharacter U+FFFF
      Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x41, 0x00]), // a NUL character (UTF-32 LE's mark)
    ];
    for (const bytes of binary) {
      expect(decodeUtf16WithBom(bytes)).toBeUndefined();
      expect(fileText(bytes)).toMatchObject({ kind: "not-text", reason: expect.stringMatching(/^UTF-16 byte order mark but /) });
    }
  });
});
