/** Issue 10 try-out P2: a UTF-8 byte order mark counts as no column, like UTF-16's. */
import { describe, expect, it } from "vitest";
import { fileText } from "./text-file.js";
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
});
