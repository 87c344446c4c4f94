/** Pulled versions that cannot be written (a folder or a symlink in the way) stay visible in status until resolved. */
import { execFile } from "node:child_process";
import { chmod, chown, mkdir, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync } from "../support/clients.js";

/** The built CLI of this checkout (a permission is only refused to a user other than root: run as nobody then). */
const CLI = resolve(dirname(fileURLToPath(import.meta.url)), "../../apps/client/dist/cli.js");
const asRoot = process.getuid?.() === 0;

/** `teammem sync --dir <dir>` in a child process, as uid/gid 65534 when the tests run as root (dir and its parents made theirs / reachable). */
async function syncAsUser(dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  if (asRoot) {
    const own = async (path: string): Promise<void> => {
      await chown(path, 65534, 65534);
      for (const e of await readdir(path, { withFileTypes: true })) if (e.isDirectory()) await own(join(path, e.name));
      else await chown(join(path, e.name), 65534, 65534);
    };
    await own(dir);
    await chmod(dirname(dir), 0o755);
  }
  return await new Promise((done) =>
    execFile(process.execPath, [CLI, "sync", "--dir", dir], { ...(asRoot ? { uid: 65534, gid: 65534 } : {}), env: { PATH: process.env.PATH ?? "" } }, (err, stdout, stderr) =>
      done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

describe.each(DATABASE_KINDS)("not-written pulled entries on %s", (kind) => {
  it("one read-only folder under team/ keeps only its files not written (named with the folder), the rest is written and the cursor moves; retried once it is writable", async () => {
    const { a, b, envA, envB } = await setup(kind);
    await mkdir(join(a, "team", "many", "deep"), { recursive: true });
    for (let i = 0; i < 4; i++) await writeFile(join(a, "team", "many", `f${i}.md`), `f${i}\n`);
    await writeFile(join(a, "team", "many", "deep", "d.md"), "d\n");
    for (let i = 0; i < 3; i++) await writeFile(join(a, "team", `top${i}.md`), `top${i}\n`);
    expect((await sync(a, envA)).code).toBe(0);
    await mkdir(join(b, "team", "many"));
    await chmod(join(b, "team", "many"), 0o555);

    const first = await syncAsUser(b);
    expect(first.stderr).toContain("team/many/f0.md: not updated from the server: folder team/many/ is not writable (permission denied, EACCES): check its owner and mode");
    expect(first.stderr).toContain("team/many/deep/d.md: not updated from the server: folder team/many/ is not writable");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("5 not written (see teammem status)");
    for (let i = 0; i < 3; i++) expect(await readFile(join(b, "team", `top${i}.md`), "utf8")).toBe(`top${i}\n`);
    const st = await status(b);
    expect(st.notWritten).toHaveLength(5);
    expect(st.cursor).toBeGreaterThan(0);
    expect(st.serverCheck.waiting).toMatchObject({ changes: 0 });

    await chmod(join(b, "team", "many"), 0o755);
    const second = await sync(b, envB);
    expect(second.code).toBe(0);
    expect(await readFile(join(b, "team", "many", "f3.md"), "utf8")).toBe("f3\n");
    expect(await readFile(join(b, "team", "many", "deep", "d.md"), "utf8")).toBe("d\n");
    expect((await status(b)).notWritten).toEqual([]);
  });

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
