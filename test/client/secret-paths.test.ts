/** A credential in a file or folder NAME holds the file back like one in its content, and is never printed or reported raw. */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeGithubPat, randomChars } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync, tree } from "../support/clients.js";
import { dumpAllRows } from "../support/server.js";

describe.each(DATABASE_KINDS)("credentials in paths on %s", (kind) => {
  it("holds back files whose path holds a credential, shows and reports them with the path redacted", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    const awsId = ["AK", "IA"].join("") + randomChars(16, Date.now() & 0xffff, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
    const pat = fakeGithubPat();
    await mkdir(join(a, "team", awsId), { recursive: true });
    await writeFile(join(a, "team", awsId, "notes.md"), "harmless notes\n");
    await writeFile(join(a, "team", `token=${pat}.md`), "harmless too\n");
    await writeFile(join(a, "team", "ok.md"), "ok\n");

    const first = await sync(a, envA);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("held back team/[REDACTED:aws-access-token]/notes.md: path holds aws-access-token");
    expect(first.stderr).toMatch(/held back team\/token=\[REDACTED:github-pat\]\.md: path holds github-pat/);
    const shown = await teammem(["status", "--dir", a]);
    expect(shown.stdout).toContain("team/[REDACTED:aws-access-token]/notes.md: path holds aws-access-token");
    const json = await status(a);
    expect(json.heldBack).toEqual([
      { path: "team/[REDACTED:aws-access-token]/notes.md", findings: [], pathFindings: [{ ruleId: "aws-access-token", label: expect.any(String) }] },
      { path: "team/token=[REDACTED:github-pat].md", findings: [], pathFindings: [{ ruleId: "github-pat", label: expect.any(String) }] },
    ]);
    for (const text of [first.stdout, first.stderr, shown.stdout, JSON.stringify(json)]) {
      expect(text).not.toContain(awsId);
      expect(text).not.toContain(pat);
    }
    const rows = await dumpAllRows(server.database);
    expect(rows.match(/client_blocked/g)).toHaveLength(2); // block reports reached the audit log...
    expect(rows).toContain("[REDACTED:aws-access-token]/notes.md"); // ...with the redacted path
    expect(rows).not.toContain(awsId);
    expect(rows).not.toContain(pat);

    await sync(b, envB);
    expect(await tree(b)).toEqual(["team/ok.md"]);
  });
});
