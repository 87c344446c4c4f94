// The floor of issue 12's write goal, shared by bench.mjs and profile.mjs (never the product).

/**
 * Registers `POST /bench/floor` on `app`: `{ path, content }` behind the same auth as the write
 * route (the global rate limiter, JWT verification and token lookup, the member role), running one
 * single-row INSERT transaction (BEGIN; INSERT INTO bench_bare; COMMIT) on `pool` (the server's own
 * `pg` pool); answers `{ ok: true }`. The caller creates the table bench_bare (path, content).
 * @param {import("fastify").FastifyInstance} app
 * @param {import("pg").Pool} pool
 */
export function addFloorRoute(app, pool) {
  app.post("/bench/floor", { onRequest: [app.authenticate, app.requireRole("member")] }, async (request) => {
    const { path, content } = request.body;
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("INSERT INTO bench_bare (path, content) VALUES ($1, $2)", [path, content]);
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
    return { ok: true };
  });
}

/** The floor's table, created once per scratch database. */
export const FLOOR_TABLE_SQL =
  "CREATE TABLE bench_bare (id bigserial PRIMARY KEY, path text NOT NULL, content text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())";
