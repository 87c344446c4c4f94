/** Pulled versions that cannot be written (a folder or a symlink in the way) stay visible in status until resolved. */
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync } from "../support/clients.js";

describe.each(DATABASE_KINDS)("not-written pulled entries on %s", (kind) => {
  it("are listed by status (and --json) as not written until the clash is gone, then written by the next sync", async () => {
    const { a, b, envA, envB } = await setup(kind);
    await mkdir(join(a, "team", "linked"));
    await writeFile(join(a, "team", "clash.md"), "clash\n");
    await writeFile(join(a, "team", "linked", "x.md"), "x\n");
    expect((await sync(a, envA)).code).toBe(0);
    // On B, a folder stands where the file goes, and the parent folder is a symlink.
    await mkdir(join(b, "team", "clash.md"));
    await mkdir(join(b, "elsewhere"));
    await symlink(join(b, "elsewhere"), join(b, "team", "linked"));

    const first = await sync(b, envB);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("team/clash.md: not updated from the server: is a folder");
    expect(first.stdout).toContain("2 not written (see teammem status)");
    const st = await status(b);
    expect(st.notWritten).toEqual([
      expect.objectContaining({ path: "team/clash.md", version: 1, reason: "is a folder" }),
      expect.objectContaining({ path: "team/linked/x.md", version: 1, reason: "a parent folder is a symlink (not followed)" }),
    ]);
    const human = await teammem(["status", "--dir", b]);
    expect(human.stdout).toContain("not written");
    expect(human.stdout).toContain("team/clash.md (server version 1): is a folder");
    expect(human.stdout).not.toContain("everything synced");

    const second = await sync(b, envB); // still there, not warned again
    expect(second.code).toBe(0);
    expect(second.stderr).toBe("");
    expect((await status(b)).notWritten).toHaveLength(2);

    await rm(join(b, "team", "clash.md"), { recursive: true });
    await rm(join(b, "team", "linked"));
    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "clash.md"), "utf8")).toBe("clash\n");
    expect(await readFile(join(b, "team", "linked", "x.md"), "utf8")).toBe("x\n");
    expect((await status(b)).notWritten).toEqual([]);
    expect((await teammem(["status", "--dir", b])).stdout).toContain("everything synced");
  });

  it("keep content that does not match its sha256 as not written until the server sends it intact; a byte order mark comes over byte for byte", async () => {
    const { a, b, envA, envB, server } = await setup(kind);
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("bom first (Notepad writes one)\r\n")]);
    await writeFile(join(a, "team", "bom.md"), bom);
    await writeFile(join(a, "team", "x.md"), "intact\n");
    expect((await sync(a, envA)).code).toBe(0);
    const tamper = (content: string) =>
      Promise.all(["versions", "entries"].map((table) => server.database.db.execute(sql`UPDATE ${sql.identifier(table)} SET content = ${content} WHERE path = 'x.md'`)));
    await tamper("tampered\n");
    const first = await sync(b, envB);
    expect(first.stderr.trim()).toBe("teammem: team/x.md: not updated from the server: the server sent content that does not match its sha256");
    expect(await readFile(join(b, "team", "bom.md"))).toEqual(bom);
    expect((await status(b)).notWritten).toEqual([expect.objectContaining({ path: "team/x.md", version: 1 })]);
    await tamper("intact\n");
    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "x.md"), "utf8")).toBe("intact\n");
    expect((await status(b)).notWritten).toEqual([]);
  });
});
