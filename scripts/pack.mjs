#!/usr/bin/env node
/**
 * `npm run pack [-- <out-dir>]`: packs the two commands for installing outside this clone:
 *   <out-dir>/teammem-scanner-<version>.tgz   the `teammem-scan` command
 *   <out-dir>/teammem-client-<version>.tgz    the `teammem` command
 * Install with `npm install -g <tarball>...` (or `--prefix <dir>`); default out-dir: ./packed.
 *
 * Each tarball is self-contained: every production dependency is bundled (`bundleDependencies`),
 * at the exact version the lock file installed here, so installing needs no registry at all.
 * Why a script: `npm pack -w apps/client` cannot bundle workspace packages (npm hoists them to the
 * root node_modules and packs only what sits in the package's own), and the workspace names
 * (@teammem/protocol, @teammem/scanner) must never be fetched from the public registry, where
 * anyone could own them. So each package is staged in a folder whose node_modules holds its
 * dependency closure: workspace packages as `npm pack` makes them, the others copied from the
 * installed tree. Expects a build (`npm run build`); `npm run pack` builds first.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outDir = resolve(process.argv[2] ?? join(root, "packed"));
const WORKSPACES = ["@teammem/protocol", "@teammem/scanner", "@teammem/client"];
const COMMANDS = ["@teammem/scanner", "@teammem/client"];

const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));
const npmJson = (args, cwd) =>
  JSON.parse(execFileSync("npm", [...args, "--json", "--ignore-scripts"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }));

/** The folder of package `name` as Node resolves it from `fromDir` (nearest node_modules upwards). */
function packageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) throw new Error(`cannot find ${name} from ${fromDir}: run npm ci first`);
  }
}

/**
 * Copies the production dependency closure of the installed package in `pkgDir` into `modules`
 * (flat): workspace packages as `npm pack` made them (`packed`: name → extracted folder), others
 * from the installed tree. A dependency nested in another's own node_modules travels with it.
 * @returns the names copied.
 * @throws when two different versions of one package would have to sit side by side.
 */
function copyClosure(pkgDir, modules, packed, copied = new Map()) {
  const manifest = readJson(join(pkgDir, "package.json"));
  const optional = manifest.optionalDependencies ?? {};
  for (const name of [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(optional)]) {
    let installed;
    try {
      installed = realpathSync(packageDir(name, pkgDir));
    } catch (err) {
      if (name in optional) continue; // not for this platform
      throw err;
    }
    if (installed.startsWith(pkgDir + sep)) continue; // nested in pkgDir: copied with it
    const { version } = readJson(join(installed, "package.json"));
    const seen = copied.get(name);
    if (seen !== undefined) {
      if (seen !== version) throw new Error(`${name} is needed at ${seen} and ${version}; one bundle cannot hold both`);
      continue;
    }
    copied.set(name, version);
    cpSync(packed[name] ?? installed, join(modules, name), { recursive: true, dereference: true });
    copyClosure(installed, modules, packed, copied);
  }
  return [...copied.keys()];
}

const work = mkdtempSync(join(tmpdir(), "teammem-pack-"));
try {
  mkdirSync(outDir, { recursive: true });
  const packed = {};
  for (const p of npmJson(["pack", ...WORKSPACES.flatMap((n) => ["-w", n]), "--pack-destination", work], root)) {
    packed[p.name] = join(work, "unpacked", p.name);
    mkdirSync(packed[p.name], { recursive: true });
    execFileSync("tar", ["-xzf", join(work, p.filename), "-C", packed[p.name], "--strip-components=1"]);
  }
  for (const name of COMMANDS) {
    const stage = join(work, "stage", name);
    cpSync(packed[name], stage, { recursive: true });
    const bundled = copyClosure(realpathSync(packageDir(name, root)), join(stage, "node_modules"), packed);
    const manifest = readJson(join(stage, "package.json"));
    writeFileSync(join(stage, "package.json"), JSON.stringify({ ...manifest, bundleDependencies: Object.keys(manifest.dependencies ?? {}) }, null, 2) + "\n");
    const [result] = npmJson(["pack", "--pack-destination", outDir], stage);
    const missing = bundled.filter((dep) => !(result.bundled ?? []).includes(dep));
    if (missing.length > 0) throw new Error(`${name}: the tarball lacks bundled ${missing.join(", ")}`);
    process.stdout.write(join(outDir, result.filename) + "\n");
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
