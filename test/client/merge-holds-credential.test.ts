/**
 * try14 F22, as a user sees it: alice adds a Twilio API key SID, bob (not having pulled it) adds
 * its secret two lines below and pushes. Each edit alone is clean; the server's merge would hold
 * the pair, so it stores no merge and answers a conflict with code merge_holds_credential. Bob's
 * client says so (not "changed the same lines"), keeps his edit (conflict copy, markers in the
 * file) and never prints the value. Real server on both databases, real folders, the CLI.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { randomChars } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, sync } from "../support/clients.js";

describe.each(DATABASE_KINDS)("a merge that would hold a credential, seen from the client, on %s", (kind) => {
  it("tells the user the merged text would hold a credential, keeps their edit, never prints the value (try14 F22)", async () => {
    const { a, b, envA, envB } = await setup(kind);
    const sid = `SK${randomChars(32, 2211, "0123456789abcdef")}`;
    const secret = randomChars(32, 2212);
    const base = "# Twilio\n\nkey id:\n\nkept apart\n\nsecret:\n";
    const file = (dir: string) => join(dir, "team", "twilio.md");
    await writeFile(file(a), base);
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);

    await writeFile(file(a), base.replace("key id:", `TWILIO_API_KEY=${sid}`));
    expect((await sync(a, envA)).code).toBe(0);
    const bobs = base.replace("secret:", `TWILIO_API_SECRET=${secret}`);
    await writeFile(file(b), bobs);
    const pushed = await teammem(["push", "--dir", b, "team/twilio.md"], envB);
    const said = pushed.stdout + pushed.stderr;
    expect(said).toContain("merge line by line, but together they would hold a credential (twilio-api-key, line 7)");
    expect(said).not.toContain("changed the same lines");
    expect(said).not.toContain(secret);
    // Nothing lost: bob's side is in the file (between markers) and saved whole as the conflict copy.
    const now = await readFile(file(b), "utf8");
    expect(now).toContain(`TWILIO_API_SECRET=${secret}`);
    expect(now).toContain("<<<<<<<");
  });
});
