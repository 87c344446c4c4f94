import { describe, expect, it } from "vitest";
import { MAX_REPLY_BYTES, MAX_REPLY_BYTES_CEILING, ReplyCap, replyBytesPerEntry } from "./reply-cap.js";

const MiB = 1024 * 1024;

describe("ReplyCap", () => {
  it("bounds replies at 160 MiB with pages as asked while the server's entry limit is unknown", () => {
    const cap = new ReplyCap();
    expect([cap.maxBytes, cap.entriesPerReply]).toEqual([MAX_REPLY_BYTES, Number.POSITIVE_INFINITY]);
  });

  it("keeps 160 MiB and pages of 500 at the server's default entry limit (256 KiB)", () => {
    const cap = new ReplyCap();
    cap.useEntryLimit(256 * 1024);
    expect(500 * replyBytesPerEntry(256 * 1024)).toBeLessThan(MAX_REPLY_BYTES);
    expect([cap.maxBytes, cap.entriesPerReply]).toEqual([160 * MiB, 505]);
  });

  it("grows with a larger entry limit up to 500 MiB, then asks for fewer entries per reply (at least 1)", () => {
    const cap = new ReplyCap();
    cap.useEntryLimit(512 * 1024);
    expect([cap.maxBytes, cap.entriesPerReply]).toEqual([500 * replyBytesPerEntry(512 * 1024), 500]);
    cap.useEntryLimit(64 * MiB);
    expect([cap.maxBytes, cap.entriesPerReply]).toEqual([MAX_REPLY_BYTES_CEILING, 6]);
    cap.useEntryLimit(2 ** 31); // the server's largest TEAMMEM_MAX_ENTRY_BYTES
    expect([cap.maxBytes, cap.entriesPerReply]).toEqual([MAX_REPLY_BYTES_CEILING, 1]);
  });

  it("gives a reply 120 s at 160 MiB and longer in proportion to a larger bound", () => {
    const cap = new ReplyCap();
    expect(cap.deadlineMs).toBe(120_000);
    cap.useEntryLimit(256 * 1024);
    expect(cap.deadlineMs).toBe(120_000);
    cap.useEntryLimit(64 * MiB);
    expect(cap.deadlineMs).toBe(375_000); // 500 MiB: 120 s x 500 / 160
  });
});
