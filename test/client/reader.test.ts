/** A reader (read-only token) who edits team files: told once that the edits are not sent, never stuck. */
import { join } from "node:path";
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync } from "../support/clients.js";
import { versionsOf } from "../support/server.js";

describe.each(DATABASE_KINDS)("a reader's local edits on %s", (kind) => {
  it("are rejected as forbidden once, shown in status, not resent until the file changes again, and syncs exit 0", async () => {
    const { server, a, envA, b } = await setup(kind);
    await writeFile(join(a, "team", "guide.md"), "v1\n");
    expect((await sync(a, envA)).code).toBe(0);
    const readerEnv = { TEAMMEM_TOKEN: await server.token("rita", "default", "reader") };
    expect((await sync(b, readerEnv)).code).toBe(0);
    expect(await readFile(join(b, "team", "guide.md"), "utf8")).toBe("v1\n");

    await writeFile(join(b, "team", "guide.md"), "v1 edited by a reader\n");
    const first = await sync(b, readerEnv);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("your token is read-only (reader): local edits to team/guide.md are not sent");
    const st = await status(b);
    expect(st.pending).toEqual([]);
    expect(st.rejected).toEqual([
      expect.objectContaining({ path: "team/guide.md", code: "forbidden", retry: false, message: expect.stringContaining("read-only") }),
    ]);
    expect((await teammem(["status", "--dir", b])).stdout).toContain("team/guide.md forbidden: your token is read-only (reader)");

    const second = await sync(b, readerEnv);
    expect(second).toMatchObject({ code: 0, stderr: "" }); // not resent, not stuck
    // The reader still receives the team's changes.
    await writeFile(join(a, "team", "other.md"), "new\n");
    await sync(a, envA);
    expect((await sync(b, readerEnv)).code).toBe(0);
    expect(await readFile(join(b, "team", "other.md"), "utf8")).toBe("new\n");

    await writeFile(join(b, "team", "guide.md"), "edited again\n");
    const third = await sync(b, readerEnv);
    expect(third.code).toBe(0);
    expect(third.stderr).toContain("local edits to team/guide.md are not sent");
    expect(await versionsOf(server.database, "guide.md")).toHaveLength(1);
  });
  it("push of a reader's edit says it is refused as forbidden and exits 1: sent by the push itself, or refused by an earlier sync", async () => {
    const { server, a, envA, b } = await setup(kind);
    await writeFile(join(a, "team", "build.md"), "v1\n");
    await writeFile(join(a, "team", "other.md"), "o1\n");
    expect((await sync(a, envA)).code).toBe(0);
    const readerEnv = { TEAMMEM_TOKEN: await server.token("rita", "default", "reader") };
    expect((await sync(b, readerEnv)).code).toBe(0);

    await writeFile(join(b, "team", "build.md"), "v1\nedit\n");
    expect((await sync(b, readerEnv)).stderr).toContain("local edits to team/build.md are not sent");
    const after = await teammem(["push", "--dir", b, "team/build.md"], readerEnv);
    expect(after.code).toBe(1);
    expect(after.stdout).toContain("team/build.md: rejected: forbidden (your token is read-only: reader), not sent");
    expect(after.stdout).not.toContain("nothing to push");
    expect(after.stderr).toContain("your token is read-only (reader): team/build.md not sent");
    expect(after.stderr).toContain("[forbidden]");
    const json = JSON.parse((await teammem(["push", "--dir", b, "team/build.md", "--json"], readerEnv)).stdout);
    expect(json).toMatchObject({ ok: false, error: { code: "forbidden" }, rejected: ["team/build.md"] });

    await writeFile(join(b, "team", "other.md"), "o1\nedit\n");
    const fresh = await teammem(["push", "--dir", b, "team/other.md"], readerEnv);
    expect(fresh.code).toBe(1);
    expect(fresh.stdout).toContain("team/other.md: rejected: forbidden");
    // Another file's refusal is not this push's: a push of an unchanged file says nothing to push.
    await writeFile(join(a, "team", "third.md"), "t\n");
    await sync(a, envA);
    await sync(b, readerEnv);
    expect(await teammem(["push", "--dir", b, "team/third.md"], readerEnv)).toMatchObject({ code: 0 });
    expect(await versionsOf(server.database, "build.md")).toHaveLength(1);
  });

  it("resends an edit refused as forbidden once the token may write: the user made a member again, or a member token stored with init --token", async () => {
    const { server, a, envA, b } = await setup(kind);
    await writeFile(join(a, "team", "guide.md"), "v1\n");
    await writeFile(join(a, "team", "notes.md"), "n1\n");
    expect((await sync(a, envA)).code).toBe(0);
    const admin = await server.token("root", "default", "admin");
    const setRole = async (role: "member" | "reader") => {
      const res = await fetch(`${server.url}/v1/admin/members/rita`, {
        method: "PUT",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify({ role }),
      });
      expect(res.status).toBe(200);
    };
    const ritaEnv = { TEAMMEM_TOKEN: await server.token("rita", "default", "member") };
    expect((await sync(b, ritaEnv)).code).toBe(0);
    await setRole("reader");
    await writeFile(join(b, "team", "guide.md"), "edited as a reader\n");
    expect((await sync(b, ritaEnv)).stderr).toContain("local edits to team/guide.md are not sent");
    expect(await sync(b, ritaEnv)).toMatchObject({ code: 0, stderr: "" }); // still a reader: not resent

    // 1. The admin makes rita a member again: the same token writes, the unchanged edit is sent.
    await setRole("member");
    expect(await sync(b, ritaEnv)).toMatchObject({ code: 0, stderr: "" });
    expect((await versionsOf(server.database, "guide.md")).at(-1)).toMatchObject({ version: 2, content: "edited as a reader\n" });
    expect((await status(b)).rejected).toEqual([]);

    // 2. A reader token refused; then a member token stored with init --token sends the same edit.
    const readerEnv = { TEAMMEM_TOKEN: await server.token("rex", "default", "reader") };
    await writeFile(join(b, "team", "notes.md"), "notes edited as a reader\n");
    expect((await sync(b, readerEnv)).stderr).toContain("local edits to team/notes.md are not sent");
    expect(await sync(b, readerEnv)).toMatchObject({ code: 0, stderr: "" });
    const memberToken = await server.token("mona", "default", "member");
    expect((await teammem(["init", "--dir", b, "--server", server.url, "--namespace", "acme-web", "--token", memberToken])).code).toBe(0);
    expect(await sync(b, {})).toMatchObject({ code: 0, stderr: "" });
    expect((await versionsOf(server.database, "notes.md")).at(-1)).toMatchObject({ version: 2, content: "notes edited as a reader\n" });
    expect((await status(b)).rejected).toEqual([]);
  });
});
