/**
 * Local file-system failures a user can act on get their own code and what to do (try17 M6: a full
 * disk printed `unexpected error: ENOSPC: no space left on device, write [failed]`).
 */
import { writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ClientError, localFailure } from "./errors.js";

/** The error Node raises for `syscall` on `path` with `code` (as fs does). */
const fsError = (code: string, syscall: string, path: string) => Object.assign(new Error(`${code}: ${syscall} '${path}'`), { code, syscall, path });

describe("localFailure", () => {
  it("a full disk (a real ENOSPC from /dev/full) is disk_full, names the system call and says nothing kept is lost", async () => {
    const err = await writeFile("/dev/full", "x").catch((e: unknown) => e);
    const local = localFailure(err);
    expect(local).toBeInstanceOf(ClientError);
    expect(local).toMatchObject({ code: "disk_full", exitCode: 1 });
    expect(local!.message).toMatch(/^the disk is full \(ENOSPC, write\): nothing teammem kept before is lost .*; free some space, then run the command again$/);
  });

  it.each([
    ["EROFS", "mkdir", "not_writable", "the file system is read-only"],
    ["EACCES", "open", "not_writable", "permission denied"],
    ["EPERM", "rename", "not_writable", "operation not permitted"],
    ["EDQUOT", "write", "disk_full", "the disk quota is spent"],
    ["EMFILE", "open", "too_many_open_files", "too many files are open in this process"],
  ])("%s is %s", (code, syscall, expected, cause) => {
    const local = localFailure(fsError(code, syscall, "/m/.teammem/command.lock"));
    expect(local).toMatchObject({ code: expected, exitCode: 1 });
    expect(local!.message.startsWith(`${cause} (${code}, ${syscall} /m/.teammem/command.lock): `)).toBe(true);
  });

  it("anything else is not a local failure (the caller reports it as before)", () => {
    expect(localFailure(fsError("ENOENT", "open", "/m/x"))).toBeUndefined();
    expect(localFailure(new Error("boom"))).toBeUndefined();
    expect(localFailure("text")).toBeUndefined();
    expect(localFailure(undefined)).toBeUndefined();
  });
});
