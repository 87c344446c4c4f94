import { randomUUID } from "node:crypto";
import { sha256Hex } from "@teammem/protocol";
import { describe, expect, it } from "vitest";
import { backupTables } from "../../src/backup/backup-format.js";

const tableRow = (name: string) => backupTables.find((t) => t.name === name)!.row;

/** A versions row as an export writes it, holding `content`. */
function versionRow(content: string | null, purged = false): Record<string, unknown> {
  return {
    id: 1,
    namespace_id: randomUUID(),
    path: "build.md",
    version: 1,
    kind: "write",
    deleted: false,
    content,
    sha256: sha256Hex("# build notes\n"),
    size_bytes: 14,
    parent_version: null,
    base_version: null,
    author_id: randomUUID(),
    author_name: "alice",
    client_id: null,
    op_id: randomUUID(),
    cursor: 1,
    created_at: "2026-12-01T01:28:13.409+00:00",
    purged_by: purged ? "admin" : null,
    purged_at: purged ? "2026-12-01T02:00:00.000+00:00" : null,
    purge_reason: purged ? "leak" : null,
  };
}

describe("backup rows holding content carry its hash", () => {
  it("accepts a versions row as exported, and a purged one (no content, hash kept)", () => {
    expect(tableRow("versions").safeParse(versionRow("# build notes\n")).success).toBe(true);
    expect(tableRow("versions").safeParse(versionRow(null, true)).success).toBe(true);
  });

  it("refuses a versions or entries row whose content was edited without its hash, or whose size is wrong", () => {
    const edited = tableRow("versions").safeParse(versionRow("# edited\n"));
    expect(edited.success).toBe(false);
    expect(edited.error!.issues.map((i) => i.path.join("."))).toEqual(["sha256", "size_bytes"]);

    const resized = tableRow("versions").safeParse({ ...versionRow("# build notes\n"), size_bytes: 3 });
    expect(resized.error!.issues.map((i) => i.path.join("."))).toEqual(["size_bytes"]);

    const entry = {
      namespace_id: randomUUID(),
      path: "build.md",
      fold_key: "build.md",
      version: 1,
      deleted: false,
      content: "# edited\n",
      sha256: sha256Hex("# build notes\n"),
      size_bytes: 9,
      cursor: 1,
      updated_at: "2026-12-01T01:28:13.409+00:00",
    };
    expect(tableRow("entries").safeParse(entry).error!.issues.map((i) => i.path.join("."))).toEqual(["sha256"]);
    expect(tableRow("entries").safeParse({ ...entry, sha256: sha256Hex("# edited\n") }).success).toBe(true);
  });
});
