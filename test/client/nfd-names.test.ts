/**
 * try15 F10: a team file whose name is in Unicode NFD (decomposed, as macOS may write "café" as
 * "cafe" + U+0301) was skipped with only "not NFC-normalised". Entry paths are NFC, so it is still
 * not sent, but sync, status and push name the file, the character and the NFC name to rename it
 * to; once renamed it syncs.
 */
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { teammem } from "../support/cli.js";
import { setup, status, syncJson } from "../support/clients.js";
import { versionsOf } from "../support/server.js";

const NFD = "cafe\u0301.md";
const NFC = "caf\u00e9.md";
const HINT =
  `invalid path: the name is not in composed Unicode (NFC) ("\u00e9" is written as U+0065 + U+0301, not U+00E9), as the server stores names; ` +
  `macOS may write names decomposed (NFD). Rename it to its NFC form team/${NFC} to sync it`;

describe("a team file named in NFD", () => {
  it("is skipped with the NFC name to rename it to (sync, status, push), and syncs once renamed", async () => {
    const { server, a, envA } = await setup("pglite");
    await writeFile(join(a, "team", NFD), "menu\n");
    const first = await syncJson(a, envA);
    expect(first.code).toBe(0);
    expect(first.json.skipped).toEqual([{ path: `team/${NFD}`, reason: HINT, symlink: false }]);
    expect(first.json.pushed.applied).toEqual([]);
    const text = await teammem(["sync", "--dir", a], envA);
    expect(text.stdout).toContain(`skipped: team/${NFD} (${HINT})`);
    expect((await status(a)).skipped).toEqual([{ path: `team/${NFD}`, reason: HINT, symlink: false }]);

    const push = await teammem(["push", "--dir", a, `team/${NFD}`], envA);
    expect([push.code, push.stderr]).toEqual([2, `teammem: team/${NFD} is not a valid team path: ${HINT} [invalid_path]\n`]);

    await rename(join(a, "team", NFD), join(a, "team", NFC));
    const renamed = await syncJson(a, envA);
    expect([renamed.code, renamed.json.skipped, renamed.json.pushed.applied]).toEqual([0, [], [`team/${NFC}`]]);
    expect((await versionsOf(server.database, NFC)).map((v) => v.content)).toEqual(["menu\n"]);
  }, 300_000);
});
