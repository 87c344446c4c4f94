import { access, appendFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { sha256Hex } from "@teammem/protocol";
import { layoutOf, type Layout } from "./layout.js";
import { journalPulled, markPulledGiven } from "./pull-journal.js";
import { loadSyncState, saveSyncState } from "./sync-state.js";

async function freshLayout(): Promise<Layout> {
  const root = await mkdtemp(join(tmpdir(), "teammem-journal-"));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  const layout = layoutOf(root);
  await mkdir(layout.state);
  await mkdir(layout.team);
  return layout;
}

const exists = (path: string) => access(path).then(() => true, () => false);

describe("pull journal (try19 F5)", () => {
  it("gives a journaled path the base whose content its file holds (absent for a tombstone); an edited or unwritten file keeps its base", async () => {
    const layout = await freshLayout();
    await saveSyncState(layout, { version: 1, cursor: 3, bases: { "gone.md": { version: 1, sha256: sha256Hex("gone\n") }, "edited.md": { version: 1, sha256: sha256Hex("e1\n") } } });
    await journalPulled(layout, [
      { path: "a.md", version: 2, sha256: sha256Hex("a2\n") },
      { path: "gone.md", version: 2, sha256: null },
      { path: "edited.md", version: 2, sha256: sha256Hex("e2\n") },
      { path: "unwritten.md", version: 1, sha256: sha256Hex("u\n") },
    ]);
    // A later batch: a.md again (its file was not written), and a line cut off by a full disk.
    await journalPulled(layout, [{ path: "a.md", version: 3, sha256: sha256Hex("a3\n") }]);
    await appendFile(layout.pullJournal, '\n{"b":[["x.md",1,');
    await writeFile(join(layout.team, "a.md"), "a2\n");
    await writeFile(join(layout.team, "edited.md"), "edited here after the pull\n");

    const state = await loadSyncState(layout);
    expect(state.bases).toEqual({
      "a.md": { version: 2, sha256: sha256Hex("a2\n") },
      "gone.md": { version: 2, sha256: null, earlier: [sha256Hex("gone\n").slice(0, 16)] },
      "edited.md": { version: 1, sha256: sha256Hex("e1\n") },
    });
    expect(await exists(layout.pullJournal)).toBe(true); // loading writes nothing
    await saveSyncState(layout, state);
    expect(await exists(layout.pullJournal)).toBe(false);
    expect((await loadSyncState(layout)).bases).toEqual(state.bases);
  });

  it("never moves a base back to an older journaled version", async () => {
    const layout = await freshLayout();
    await writeFile(join(layout.team, "a.md"), "a1\n");
    await saveSyncState(layout, { version: 1, cursor: 5, bases: { "a.md": { version: 4, sha256: sha256Hex("a4\n") } } });
    await journalPulled(layout, [{ path: "a.md", version: 1, sha256: sha256Hex("a1\n") }]);
    expect((await loadSyncState(layout)).bases["a.md"]).toEqual({ version: 4, sha256: sha256Hex("a4\n") });
  });

  it("gives a path the pull marked given its journaled base whatever its file holds now; an unmarked one only by content (try21 F8)", async () => {
    const layout = await freshLayout();
    await saveSyncState(layout, { version: 1, cursor: 3, bases: { "old.md": { version: 1, sha256: sha256Hex("o1\n") } } });
    await journalPulled(layout, [
      { path: "new.md", version: 1, sha256: sha256Hex("n1\n") },
      { path: "old.md", version: 2, sha256: sha256Hex("o2\n") },
      { path: "removed.md", version: 1, sha256: sha256Hex("r1\n") },
      { path: "unreached.md", version: 1, sha256: sha256Hex("u1\n") },
    ]);
    await markPulledGiven(layout, "new.md", 1);
    await markPulledGiven(layout, "old.md", 2);
    await markPulledGiven(layout, "removed.md", 1);
    await markPulledGiven(layout, "stray.md", 4); // a mark of no journaled base: ignored
    await appendFile(layout.pullJournal, '\n{"w":[["unreached.md",'); // a mark cut off: missing
    // Edited (new.md, old.md) or deleted (removed.md) here after the pull wrote them; unreached.md
    // was created here before the pull reached it.
    await writeFile(join(layout.team, "new.md"), "n1 edited\n");
    await writeFile(join(layout.team, "old.md"), "o2 edited\n");
    await writeFile(join(layout.team, "unreached.md"), "made here\n");

    expect((await loadSyncState(layout)).bases).toEqual({
      "new.md": { version: 1, sha256: sha256Hex("n1\n") },
      "old.md": { version: 2, sha256: sha256Hex("o2\n"), earlier: [sha256Hex("o1\n").slice(0, 16)] },
      "removed.md": { version: 1, sha256: sha256Hex("r1\n") },
    });
  });
});
