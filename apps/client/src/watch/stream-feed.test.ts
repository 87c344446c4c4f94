import { describe, expect, it } from "vitest";
import { sha256Hex, type Change } from "@teammem/protocol";
import type { Api } from "../http/api.js";
import { StreamFeed } from "./stream-feed.js";

const SERVER = { id: "00000000-0000-4000-8000-000000000001", epoch: "00000000-0000-4000-8000-000000000002" };

function change(cursor: number, path = `f${cursor}.md`, content: string | null = `v${cursor}\n`): Change {
  return {
    path,
    version: 1,
    deleted: false,
    sha256: content === null ? sha256Hex("big") : sha256Hex(content),
    size: 3,
    content,
    cursor,
    author: "bob",
    createdAt: "2026-01-01T00:00:00.000Z",
  };
}

/** An Api whose `changes` and `version` record their calls (the rest is never used by the feed). */
function recordingApi() {
  const calls: string[] = [];
  const api = {
    changes: async (since: number, limit: number) => {
      calls.push(`changes ${since} ${limit}`);
      return { changes: [change(since + 1)], nextCursor: since + 1, hasMore: false, server: SERVER };
    },
    version: async (path: string, version: number) => {
      calls.push(`version ${path} ${version}`);
      return { path, version, content: "big", server: SERVER };
    },
  } as unknown as Api;
  return { api, calls };
}

describe("StreamFeed", () => {
  it("serves the changes delivered after the asked cursor, pages by limit, and covers up to the last cursor heard", async () => {
    const { api, calls } = recordingApi();
    const feed = new StreamFeed();
    feed.reset(10, SERVER);
    expect(feed.add(change(12), false)).toBe(true);
    expect(feed.add(change(15), false)).toBe(true);
    expect(feed.add(change(15), false)).toBe(false); // a duplicate is not taken twice
    feed.coveredThrough(20);
    const wrapped = feed.wrap(api);
    expect(await wrapped.changes(10, 1)).toEqual({ changes: [change(12)], nextCursor: 12, hasMore: true, server: SERVER });
    expect(await wrapped.changes(12, 100)).toEqual({ changes: [change(15)], nextCursor: 20, hasMore: false, server: SERVER });
    expect(await wrapped.changes(20, 100)).toEqual({ changes: [], nextCursor: 20, hasMore: false, server: SERVER });
    expect(calls).toEqual([]);
    expect(feed.hasAfter(12)).toBe(true);
    feed.forgetThrough(15);
    expect(feed.hasAfter(12)).toBe(false);
  });

  it("asks the server for a cursor outside the covered range, or when no stream is live", async () => {
    const { api, calls } = recordingApi();
    const feed = new StreamFeed();
    const wrapped = feed.wrap(api);
    await wrapped.changes(3, 50); // nothing subscribed yet
    expect(feed.server).toEqual(SERVER); // learnt from the reply
    feed.reset(10, SERVER);
    await wrapped.changes(9, 50); // below the subscription
    feed.add(change(11), false);
    await wrapped.changes(12, 50); // above what was heard
    feed.drop();
    await wrapped.changes(11, 50); // the stream was lost
    expect(calls).toEqual(["changes 3 50", "changes 9 50", "changes 12 50", "changes 11 50"]);
  });

  it("fetches the content the stream left out (too large) when the change is served", async () => {
    const { api, calls } = recordingApi();
    const feed = new StreamFeed();
    feed.reset(0, SERVER);
    feed.add(change(1, "big.md", null), true);
    const page = await feed.wrap(api).changes(0, 10);
    expect(page.changes.map((c) => [c.path, c.content])).toEqual([["big.md", "big"]]);
    expect(calls).toEqual(["version big.md 1"]);
  });
});
