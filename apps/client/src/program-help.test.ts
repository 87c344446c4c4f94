/**
 * `--help` of the program and of every command, byte for byte, against a snapshot taken before
 * program.ts loaded command modules lazily: the help text is part of the CLI's contract.
 */
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { run } from "./program.js";

/** Every help screen: the program's, each command's, and each subcommand of a group. */
const HELP_ARGVS: readonly (readonly string[])[] = [
  ["--help"],
  ["help"],
  ...["init", "sync", "watch", "push", "status", "history", "diff", "restore", "check", "doctor", "resolve", "scan", "hooks"].map((name) => [name, "--help"]),
  ["help", "status"],
  ["hooks", "install", "--help"],
  ["hooks", "uninstall", "--help"],
];

/** `teammem ...argv` in-process: exit code, stdout, stderr. */
async function teammem(argv: readonly string[]) {
  const out = { code: 0, stdout: "", stderr: "" };
  out.code = await run(argv, {}, { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t) }, tmpdir());
  return out;
}

describe("teammem --help", () => {
  it.each(HELP_ARGVS.map((argv) => [argv.join(" "), argv] as const))("`teammem %s` prints the same help as before", async (_name, argv) => {
    expect(await teammem(argv)).toMatchSnapshot();
  });

  it("prints the version for -V and --version", async () => {
    const short = await teammem(["-V"]);
    expect(short).toMatchObject({ code: 0, stderr: "" });
    expect(short.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
    expect(await teammem(["--version"])).toEqual(short);
  });
});
