/**
 * A team file saved as UTF-16 with a byte order mark (Windows editors) is read as text, scanned and
 * sent as UTF-8; the server keeps UTF-8 only, so the pull that next writes it (a teammate's edit)
 * writes UTF-8 without a mark, while a sync that writes nothing leaves the file's bytes alone
 * (apps/client/README.md, *Scopes*, "Text encodings"; try21 F7 asked for this to be said).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { setup, status, sync } from "../support/clients.js";

const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);

describe.each(DATABASE_KINDS)("a UTF-16 team file on %s", (kind) => {
  it("is sent as UTF-8, kept byte for byte while nothing is pulled for it, and written as UTF-8 (no mark) by the pull of a teammate's edit or a merge", async () => {
    const { a, b, envA, envB } = await setup(kind);
    const text = "utf16 note, clé\r\nline2\r\n";
    await writeFile(join(a, "team", "u16.md"), utf16le(text));
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "u16.md"))).toEqual(Buffer.from(text, "utf8")); // the teammate gets UTF-8

    // A sync with nothing to pull for it leaves A's file as saved, and sees no change in it.
    expect((await sync(a, envA)).code).toBe(0);
    expect(await readFile(join(a, "team", "u16.md"))).toEqual(utf16le(text));
    expect(await status(a)).toMatchObject({ pending: [], modified: [] });

    // The teammate's edit is pulled into A's file as UTF-8, without a byte order mark; nothing is lost or sent back.
    const edited = `${text}line3 by bob\r\n`;
    await writeFile(join(b, "team", "u16.md"), edited);
    expect((await sync(b, envB)).code).toBe(0);
    expect((await sync(a, envA)).code).toBe(0);
    expect(await readFile(join(a, "team", "u16.md"))).toEqual(Buffer.from(edited, "utf8"));
    expect(await status(a)).toMatchObject({ pending: [], modified: [] });

    // Saved as UTF-16 again and edited on both sides: the merge is written as UTF-8 and sent.
    await writeFile(join(a, "team", "u16.md"), utf16le(`top by alice\r\n${edited}`));
    await writeFile(join(b, "team", "u16.md"), `${edited}line4 by bob\r\n`);
    expect((await sync(b, envB)).code).toBe(0);
    expect((await sync(a, envA)).code).toBe(0);
    const merged = `top by alice\r\n${edited}line4 by bob\r\n`;
    expect(await readFile(join(a, "team", "u16.md"))).toEqual(Buffer.from(merged, "utf8"));
    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "u16.md"), "utf8")).toBe(merged);
  });
});
