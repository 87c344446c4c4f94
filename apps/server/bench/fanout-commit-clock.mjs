// The commit clock of fanout.mjs: a process doing nothing but LISTEN teammem_changes, so the time
// each commit's NOTIFY arrives is taken on an idle event loop (the load process is busy receiving
// thousands of messages and would read it late). Sends {cursor, at} to its parent over IPC; `at`
// is performance.timeOrigin + performance.now(), comparable across processes of one machine.
import { performance } from "node:perf_hooks";
import pg from "pg";

const client = new pg.Client({ connectionString: process.argv[2] });
// The benchmark drops its database at the end (terminating this connection): just leave.
client.on("error", () => process.exit(0));
await client.connect();
client.on("notification", (n) => {
  const at = performance.timeOrigin + performance.now();
  process.send({ cursor: Number(n.payload.split(":")[1]), at });
});
await client.query("LISTEN teammem_changes");
process.send({ ready: true });
process.on("disconnect", () => void client.end().then(() => process.exit(0)));
