// The subscribers and the writer of fanout.mjs, in their own process (so their CPU is not spent on
// the servers' event loop). Commands arrive over IPC: init, then per level teammem connect/run
// and bare connect/run; each answers one message.
import { fork } from "node:child_process";
import { performance } from "node:perf_hooks";
import http from "node:http";
import WebSocket from "ws";
import { percentile } from "../../../scripts/lib/bench.mjs";

const now = () => performance.timeOrigin + performance.now();
let cfg;
/** cursor -> commit time (ms), from the commit-clock process's LISTEN connection. */
let commits = new Map();
let teammem = null; // { sockets, namespace, changes, received: [] }
let bareState = null;
/** The frames subscriber 0 received in the last teammem run and their commit times, replayed to the bare server. */
let replay = [];
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function post(path, body) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(
      `${cfg.base}${path}`,
      { method: "POST", agent, headers: { authorization: `Bearer ${cfg.token}`, "content-type": "application/json", "content-length": Buffer.byteLength(data) } },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`HTTP ${res.statusCode}: ${text}`))));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

function put(path) {
  return new Promise((resolve, reject) => {
    const req = http.request(`${cfg.base}${path}`, { method: "PUT", agent, headers: { authorization: `Bearer ${cfg.token}` } }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode < 300 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Opens `n` sockets (at most 200 handshakes at a time); `onOpen(ws, i)` runs on each. */
async function openMany(n, open) {
  const sockets = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      sockets[i] = await open(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(200, n) }, worker));
  return sockets;
}

const CURSOR = /"cursor":(\d+)/;

function stats(latencies, expected, startedAt, lastAt) {
  const sorted = Float64Array.from(latencies).sort();
  const q = (p) => (sorted.length ? percentile(sorted, p) : NaN);
  return { p50: q(50), p99: q(99), max: sorted.at(-1), received: sorted.length, expected, perSec: (sorted.length / (lastAt - startedAt)) * 1000 };
}

async function teammemConnect({ namespace, subscribers, changes }) {
  await put(`/v1/namespaces/bench%2F${namespace}`);
  const ns = `bench/${namespace}`;
  const url = `${cfg.base.replace(/^http/, "ws")}/v1/namespaces/${encodeURIComponent(ns)}/stream`;
  // Receipts are kept raw (cursor, time); latencies are computed once every commit time has arrived.
  const state = { ns, changes, cursors: [], times: [], lastAt: 0, frames: [], sockets: [] };
  state.sockets = await openMany(subscribers, (i) =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(url, ["teammem.stream.v1"], { headers: { authorization: `Bearer ${cfg.token}` }, perMessageDeflate: false });
      ws.on("error", reject);
      ws.on("open", () => ws.send(JSON.stringify({ type: "subscribe", protocolVersion: 1, cursor: 0 })));
      ws.on("message", (data) => {
        const text = String(data);
        if (text.startsWith('{"type":"change"')) {
          const t = now();
          const cursor = Number(CURSOR.exec(text)[1]);
          state.cursors.push(cursor);
          state.times.push(t);
          state.lastAt = t;
          if (i === 0) state.frames.push({ cursor, text });
        } else if (text.startsWith('{"type":"caught_up"')) resolve(ws);
        else if (text.startsWith('{"type":"error"')) reject(new Error(text));
      });
    }),
  );
  commits = new Map();
  teammem = state;
  return {};
}

async function teammemRun() {
  const state = teammem;
  const pad = "memory line. ".repeat(Math.ceil(cfg.contentBytes / 13)).slice(0, cfg.contentBytes);
  const expected = state.sockets.length * state.changes;
  const startedAt = now();
  for (let i = 0; i < state.changes; i++) {
    await post(`/v1/namespaces/${encodeURIComponent(state.ns)}/batch`, {
      operations: [{ opId: `bench-${Date.now()}-${i}-${Math.random().toString(36).slice(2)}`, path: `team/note-${i}.md`, baseVersion: 0, content: `# note ${i}\n\n${pad}\n` }],
    });
  }
  const deadline = now() + 60_000;
  while ((state.times.length < expected || commits.size < state.changes) && now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const latencies = state.times.map((t, k) => t - (commits.get(state.cursors[k]) ?? NaN)).filter(Number.isFinite);
  const result = stats(latencies, expected, commits.get(Math.min(...commits.keys())) ?? startedAt, state.lastAt);
  replay = state.frames.map((f) => ({ text: f.text, at: commits.get(f.cursor) }));
  for (const ws of state.sockets) ws.terminate();
  teammem = null;
  return result;
}

async function bareConnect({ subscribers }) {
  const state = { latencies: [], lastAt: 0, sockets: [], sentAt: new Map() };
  state.sockets = await openMany(subscribers, () =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(cfg.bareUrl, { perMessageDeflate: false });
      ws.on("error", reject);
      ws.on("open", () => resolve(ws));
      ws.on("message", (data) => {
        const text = String(data);
        const t = now();
        const cursor = Number(CURSOR.exec(text)[1]);
        state.latencies.push(t - (state.sentAt.get(cursor) ?? t));
        state.lastAt = t;
      });
    }),
  );
  state.writer = await new Promise((resolve, reject) => {
    const ws = new WebSocket(cfg.bareUrl, { perMessageDeflate: false });
    ws.on("error", reject);
    ws.on("open", () => (ws.send("writer"), resolve(ws)));
  });
  await new Promise((r) => setTimeout(r, 50)); // the hello is read before the first frame
  bareState = state;
  return {};
}

async function bareRun() {
  const state = bareState;
  const frames = replay.length ? replay : [];
  const expected = state.sockets.length * frames.length;
  const startedAt = now();
  const t0 = frames[0]?.at ?? 0;
  for (const f of frames) {
    // the same intervals as teammem's commits
    const due = startedAt + ((f.at ?? t0) - t0);
    const wait = due - now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    state.sentAt.set(Number(CURSOR.exec(f.text)[1]), now());
    state.writer.send(f.text);
  }
  const deadline = now() + 60_000;
  while (state.latencies.length < expected && now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const result = stats(state.latencies, expected, startedAt, state.lastAt);
  for (const ws of state.sockets) ws.terminate();
  state.writer.terminate();
  bareState = null;
  return result;
}

process.on("message", async (msg) => {
  try {
    let answer = {};
    if (msg.cmd === "init") {
      cfg = msg;
      const clock = fork(new URL("./fanout-commit-clock.mjs", import.meta.url), [msg.dbUrl]);
      await new Promise((resolve) => {
        clock.on("message", (m) => {
          if (m.ready) resolve();
          else if (!commits.has(m.cursor)) commits.set(m.cursor, m.at);
        });
      });
    } else if (msg.cmd === "teammem") answer = msg.phase === "connect" ? await teammemConnect(msg) : await teammemRun();
    else if (msg.cmd === "bare") answer = msg.phase === "connect" ? await bareConnect(msg) : await bareRun();
    process.send(answer);
  } catch (err) {
    process.send({ error: String(err?.stack ?? err) });
  }
});
