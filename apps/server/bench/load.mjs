// Load generator of the server write benchmark: runs in its own process (forked by bench.mjs), so
// the HTTP client's CPU is not spent on the server's event loop. It receives one message per
// concurrency level, { level, base, token, dbUrl, pool, ops, warmup }, runs every measurement of
// that level and answers { level, rows: { name: { p50, p99, opsPerSec } } } (latencies in ms).
//   HTTP: node:http with a keep-alive Agent of `level` sockets (one per worker, reused);
//   bare: a pg Pool of `pool` connections (the server's pool size at this level) on `dbUrl`.
import { randomUUID } from "node:crypto";
import http from "node:http";
import pg from "pg";
import { percentile } from "../../../scripts/lib/bench.mjs";

const PARAGRAPH = "## Build\n\nRun `npm run build` before `npm test`; the CI uses Node 20 and PostgreSQL 15.\n";
/** ~1 KB of Markdown, different every call. */
const content = (n) => `# Note ${n}\n\n${PARAGRAPH.repeat(12)}\nrevision ${n} ${randomUUID()}\n`;
/** Operations per request of the batch-throughput row. */
const BATCH_OPS = 100;

/** Asks the server process for its CPU time so far (process.cpuUsage(), user + system, µs). */
function serverCpu() {
  return new Promise((resolve) => {
    process.once("message", (m) => resolve(m.cpuMicros));
    process.send({ cpu: true });
  });
}

/**
 * Runs `op(worker, i)` `total` times over `concurrency` workers; p50/p99 latency (ms), ops/s and
 * the server process's CPU time per operation (µs).
 */
async function run(concurrency, total, op) {
  const cpu0 = await serverCpu();
  const result = await runOnly(concurrency, total, op);
  result.serverCpuMicros = ((await serverCpu()) - cpu0) / total;
  return result;
}

async function runOnly(concurrency, total, op) {
  const latencies = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const t0 = performance.now();
        await op(w, i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return summary(latencies, performance.now() - started);
}

/** p50/p99 of `latencies` (ms, sorted in place) and ops/s over `wallMs`. */
function summary(latencies, wallMs) {
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), opsPerSec: (latencies.length / wallMs) * 1000, wallMs, latencies };
}

/** One HTTP request on `agent`; resolves { status, body } (body as a string). */
function request(agent, url, method, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode, body: text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Each (level, worker, layout) owns one entry and updates it from its last version (fast-forward). */
const versions = new Map();

async function measureLevel({ level, base, token, dbUrl, pool, ops, warmup }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: level, maxFreeSockets: level });
  const auth = { authorization: `Bearer ${token}` };
  const bare = new pg.Pool({ connectionString: dbUrl, max: pool });
  try {
    const serverWrite = (shared) => async (w, i) => {
      const ns = shared ? `shared-c${level}` : `own-c${level}-w${w}`;
      const path = `bench/w${w}.md`;
      const key = `${ns}/${path}`;
      const baseVersion = versions.get(key) ?? 0;
      const body = JSON.stringify({ operations: [{ opId: randomUUID(), path, baseVersion, content: content(i) }] });
      const res = await request(agent, `${base}/v1/namespaces/${ns}/batch`, "POST", { ...auth, "content-type": "application/json", "content-length": Buffer.byteLength(body) }, body);
      const r = res.status === 200 ? JSON.parse(res.body).results?.[0] : undefined;
      if (r?.status !== "applied") throw new Error(`write ${key} failed: ${res.status} ${res.body.slice(0, 300)}`);
      versions.set(key, r.version);
    };
    /** 100 operations per request, each worker in its own namespace: entries new on the first pass, then edits. */
    const serverBatch = async (w, i) => {
      const ns = `batch-c${level}-w${w}`;
      const operations = Array.from({ length: BATCH_OPS }, (_, k) => {
        const path = `bench/b${k}.md`;
        return { opId: randomUUID(), path, baseVersion: versions.get(`${ns}/${path}`) ?? 0, content: content(i * BATCH_OPS + k) };
      });
      const body = JSON.stringify({ operations });
      const res = await request(agent, `${base}/v1/namespaces/${ns}/batch`, "POST", { ...auth, "content-type": "application/json", "content-length": Buffer.byteLength(body) }, body);
      const results = res.status === 200 ? JSON.parse(res.body).results : [];
      for (const r of results) {
        if (r.status !== "applied") throw new Error(`batch in ${ns} failed: ${JSON.stringify(r).slice(0, 300)}`);
        versions.set(`${ns}/${r.path}`, r.version);
      }
      if (results.length !== BATCH_OPS) throw new Error(`batch in ${ns} failed: ${res.status} ${res.body.slice(0, 300)}`);
    };
    const serverRead = async (w) => {
      const res = await request(agent, `${base}/v1/namespaces/own-c${level}-w${w}/entry?path=bench/w${w}.md`, "GET", auth);
      if (res.status !== 200) throw new Error(`read failed: ${res.status} ${res.body.slice(0, 300)}`);
    };
    /** The floor route (bench.mjs): same HTTP, auth and rate limiter, one INSERT transaction on the server's pool. */
    const floor = async (w, i) => {
      const body = JSON.stringify({ path: `bench/c${level}/w${w}.md`, content: content(i) });
      const res = await request(agent, `${base}/bench/floor`, "POST", { ...auth, "content-type": "application/json", "content-length": Buffer.byteLength(body) }, body);
      if (res.status !== 200) throw new Error(`floor failed: ${res.status} ${res.body.slice(0, 300)}`);
    };
    const health = async () => {
      const res = await request(agent, `${base}/healthz`, "GET", {});
      if (res.status !== 200) throw new Error(`healthz failed: ${res.status}`);
    };
    const bareInsert = async (w, i) => {
      const c = await bare.connect();
      try {
        await c.query("BEGIN");
        await c.query("INSERT INTO bench_bare (path, content) VALUES ($1, $2)", [`bench/c${level}/w${w}.md`, content(i)]);
        await c.query("COMMIT");
      } finally {
        c.release();
      }
    };

    // Warm-up: JIT, sockets, pool connections, the server's namespace cache and token cache.
    await run(level, Math.max(warmup, level), serverWrite(false));
    await run(level, Math.max(warmup, level), serverWrite(true));
    await run(level, warmup, serverRead);
    await run(level, warmup, health);
    await run(level, Math.max(warmup, pool), bareInsert);
    await run(level, Math.max(warmup, level), floor);
    const rows = {};
    // The floor and bare runs come in two halves, first and last, so a burst of outside load hits them and the writes alike.
    const floor1 = await run(level, Math.ceil(ops / 2), floor);
    const bare1 = await run(level, Math.ceil(ops / 2), bareInsert);
    rows.own = await run(level, ops, serverWrite(false));
    rows.shared = await run(level, ops, serverWrite(true));
    rows.read = await run(level, ops, serverRead);
    rows.health = await run(level, ops, health);
    // Operations per second with 100-operation batches (latency per request of 100).
    const batches = Math.max(level, Math.ceil(ops / 20));
    await run(level, level, serverBatch);
    rows.batch = await run(level, batches, serverBatch);
    rows.batch.opsPerSec *= BATCH_OPS;
    rows.batch.serverCpuMicros /= BATCH_OPS;
    const bare2 = await run(level, Math.ceil(ops / 2), bareInsert);
    const floor2 = await run(level, Math.ceil(ops / 2), floor);
    rows.floor = summary([...floor1.latencies, ...floor2.latencies], floor1.wallMs + floor2.wallMs);
    rows.floor.serverCpuMicros = (floor1.serverCpuMicros * floor1.latencies.length + floor2.serverCpuMicros * floor2.latencies.length) / (floor1.latencies.length + floor2.latencies.length);
    rows.bare = summary([...bare1.latencies, ...bare2.latencies], bare1.wallMs + bare2.wallMs);
    for (const row of Object.values(rows)) {
      delete row.latencies;
      delete row.wallMs;
    }
    return rows;
  } finally {
    agent.destroy();
    await bare.end();
  }
}

process.on("message", (msg) => {
  if (msg.cpuMicros !== undefined) return;
  measureLevel(msg).then(
    (rows) => process.send({ level: msg.level, rows }),
    (err) => process.send({ level: msg.level, error: String(err?.stack ?? err) }),
  );
});
