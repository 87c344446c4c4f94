/** A teammate deletes a file you edited: the sync's line says whether your edit was sent, held back (try-out F12) or rejected (try21 F4). */
import { mkdir, readFile, writeFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { setup, sync } from "../support/clients.js";
import { versionsOf } from "../support/server.js";

describe.each(DATABASE_KINDS)("an edit kept over a teammate's delete on %s", (kind) => {
  it("is 'sent as a new version' when sent, and 'held back: not sent' when a credential holds it back", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "plain.md"), "p1\n");
    await writeFile(join(a, "team", "held.md"), "h1\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    await rm(join(a, "team", "plain.md"));
    await rm(join(a, "team", "held.md"));
    expect((await sync(a, envA)).code).toBe(0);
    await writeFile(join(b, "team", "plain.md"), "p1 edited\n");
    await writeFile(join(b, "team", "held.md"), `h1 token ${fakeGithubPat(11)}\n`);

    const r = await sync(b, envB);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("deleted team/plain.md (v2); your edit keeps it (sent as a new version)");
    expect(r.stdout).toContain("deleted team/held.md (v2); your edit keeps it here (held back: not sent until the credential is removed)");
    expect(r.stdout).not.toContain("team/held.md (v2); your edit keeps it (sent");
    expect((await versionsOf(server.database, "plain.md")).at(-1)).toMatchObject({ version: 3, content: "p1 edited\n" });
    expect(await versionsOf(server.database, "held.md")).toHaveLength(2);
    expect(await readFile(join(b, "team", "held.md"), "utf8")).toContain("h1 token");
  });

  it("says 'not sent' with the server's code when the server rejected the edit in the same sync, never 'sent as a new version' (try21 F4)", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await mkdir(join(a, "team", "dx"));
    await writeFile(join(a, "team", "dx", "a.md"), "a\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    await writeFile(join(b, "team", "dx", "a.md"), "B edit\n");
    // Alice replaces the folder by a file: dx/a.md deleted, dx created.
    await rm(join(a, "team", "dx"), { recursive: true });
    await writeFile(join(a, "team", "dx"), "now a file\n");
    expect((await sync(a, envA)).code).toBe(0);

    const r = await sync(b, envB);
    expect(r.stdout).toContain("pushed: 0 applied, 0 merged, 0 conflict(s), 1 rejected");
    expect(r.stdout).toContain("deleted team/dx/a.md (v2); your edit keeps it here, not sent: path_type_conflict, rejected by the server (see teammem status)");
    expect(r.stdout).not.toContain("sent as a new version");
    expect(await readFile(join(b, "team", "dx", "a.md"), "utf8")).toBe("B edit\n");
    expect((await versionsOf(server.database, "dx/a.md")).at(-1)).toMatchObject({ version: 2 });
  });
});
