#!/usr/bin/env node
// Main job on real input: two teammates sync a real memory folder through a real server.
//
//   npm run demo -- <memory folder>        e.g. npm run demo -- ../shared/corpus/memory
//
// Starts `teammem-server` on the embedded database (a temporary data folder), sets up two clients
// in temporary folders, copies <memory folder> into the first client's team/ scope, adds a private
// note and a team file holding a generated fake GitHub token, syncs both clients through the CLIs,
// and prints a summary: files and bytes synced, files held back (rule and line), elapsed time, and
// whether the two team trees are identical. Exit 0 when the trees match (held-back files aside)
// and nothing private or secret reached the second client.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fakeGithubPat } from "../packages/scanner/dist/testing.js";
import { CLIENT_CLI, SERVER_CLI, readTree, runCli as run, startServer } from "./lib/processes.mjs";

function fail(message) {
  console.error(`demo: ${message}`);
  process.exit(2);
}

const source = process.argv[2];
if (!source) fail("usage: npm run demo -- <memory folder>");
const sourceDir = resolve(source);
if (!existsSync(sourceDir) || !statSync(sourceDir).isDirectory()) fail(`${sourceDir} is not a folder`);

const started = performance.now();
const work = mkdtempSync(join(tmpdir(), "teammem-demo-"));
const dataDir = join(work, "server-data");
const [dirA, dirB] = [join(work, "alice"), join(work, "bob")];
let server;
try {
  // Tokens first: the embedded database admits one process at a time, so create them before start.
  run(SERVER_CLI, ["migrate", "--data-dir", dataDir]);
  const token = (user) =>
    run(SERVER_CLI, ["token", "create", "--team", "default", "--user", user, "--role", "member", "--data-dir", dataDir]).stdout.trim();
  const tokenA = token("alice");
  const tokenB = token("bob");

  server = await startServer({ dataDir });
  const url = server.url;

  for (const [dir, tok] of [[dirA, tokenA], [dirB, tokenB]]) {
    mkdirSync(dir, { recursive: true });
    run(CLIENT_CLI, ["init", "--dir", dir, "--server", url, "--namespace", "demo", "--token", tok]);
  }

  // Alice's memory: the given folder as team scope, plus a private note and a leaked token.
  cpSync(sourceDir, join(dirA, "team"), { recursive: true });
  const marker = `private-marker-${Date.now()}`;
  mkdirSync(join(dirA, "notes"), { recursive: true });
  writeFileSync(join(dirA, "notes", "private.md"), `# Private\n${marker}\n`);
  writeFileSync(join(dirA, "team", "leak.md"), `# Deploy notes\n\nUse this token:\nGITHUB_TOKEN=${fakeGithubPat()}\n`);

  const syncStarted = performance.now();
  run(CLIENT_CLI, ["sync", "--dir", dirA], { allow: [0, 1] });
  run(CLIENT_CLI, ["sync", "--dir", dirB], { allow: [0, 1] });
  const syncMs = performance.now() - syncStarted;

  const status = JSON.parse(run(CLIENT_CLI, ["status", "--dir", dirA, "--json"]).stdout);
  const heldBack = status.heldBack ?? [];
  const teamA = readTree(join(dirA, "team"));
  const teamB = readTree(join(dirB, "team"));
  for (const h of heldBack) teamA.delete(h.path.replace(/^team\//, ""));
  const identical = teamA.size === teamB.size && [...teamA].every(([p, b]) => teamB.get(p)?.equals(b));
  const bytes = [...teamB.values()].reduce((n, b) => n + b.length, 0);
  const privateLeaked = [...teamB.values()].some((b) => b.includes(marker)) || existsSync(join(dirB, "notes"));

  console.log("teammem demo");
  console.log(`  source folder:     ${sourceDir}`);
  console.log(`  files synced:      ${teamB.size} (${bytes} bytes) from alice to bob`);
  console.log(`  held back:         ${heldBack.length}`);
  for (const h of heldBack) for (const f of h.findings) console.log(`    ${h.path}:${f.line} ${f.ruleId}`);
  console.log(`  private leaked:    ${privateLeaked ? "YES" : "no"}`);
  console.log(`  team trees equal:  ${identical ? "yes" : "NO"}`);
  console.log(`  sync time:         ${(syncMs / 1000).toFixed(2)} s (both clients)`);
  console.log(`  total time:        ${((performance.now() - started) / 1000).toFixed(2)} s (incl. server start)`);
  process.exitCode = identical && !privateLeaked && heldBack.length > 0 ? 0 : 1;
} catch (err) {
  console.error(`demo failed: ${err.message}`);
  process.exitCode = 1;
} finally {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
}

