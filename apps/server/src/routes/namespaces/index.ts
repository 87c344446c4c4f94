/**
 * /v1/namespaces: a team's namespaces and everything in them. Every route needs a bearer token;
 * writes need the member role, reads the reader role. A namespace is looked up within the token's
 * team only, so another team's namespace is a 404 `not_found`, like a missing one.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { BlockReport, NamespaceListResponse, NamespaceParams, NoBody, NamespaceResponse } from "@teammem/protocol";
import { z } from "zod";
import { blockReportFindings } from "../../audit/block-report-findings.js";
import { Refusal } from "../../errors/refusal.js";
import { recordAuditEvent } from "../../audit/events.js";
import { refuseSecretNames } from "../../secrets/refuse-secret-names.js";
import { DeviceSightings } from "../../store/devices.js";
import { ensureNamespace, listNamespaces, namespaceLiveEntries } from "../../store/namespaces.js";
import { ensureCallerNamespace, errorReplies, NamespaceCache, serverRef } from "./context.js";
import readRoutes from "./reads.js";
import reconcileRoutes from "./reconcile.js";
import streamRoutes from "./stream.js";
import writeRoutes from "./writes.js";

const namespaceRoutes: FastifyPluginAsyncZod = async (app) => {
  app.decorate("namespaceCache", new NamespaceCache());
  app.decorate("deviceSightings", new DeviceSightings());
  app.addHook("onRequest", app.authenticate);
  app.addHook("preHandler", refuseSecretNames); // a namespace name or clientId holding a credential

  app.get(
    "/",
    {
      onRequest: [app.requireRole("reader")],
      schema: { summary: "List the team's namespaces", response: { 200: NamespaceListResponse, ...errorReplies } },
    },
    async (request) => ({ namespaces: await listNamespaces(app.db, request.auth.teamId), server: await serverRef(app) }),
  );

  app.put(
    "/:namespace",
    {
      onRequest: [app.requireRole("member")],
      schema: {
        summary: "Create a namespace (idempotent): 201 when created, 200 when it existed, 409 namespace_name_conflict when only its case or a trailing .git differs from an existing one",
        params: NamespaceParams,
        body: NoBody,
        response: { 200: NamespaceResponse, 201: NamespaceResponse, ...errorReplies },
      },
    },
    async (request, reply) => {
      const ns = await ensureNamespace(app.db, request.auth.teamId, request.params.namespace);
      app.namespaceCache.remember(ns);
      const entries = ns.created ? 0 : await namespaceLiveEntries(app.db, ns.id);
      return reply.status(ns.created ? 201 : 200).send({ name: ns.name, cursor: ns.cursor, created: ns.created, entries, server: await serverRef(app) });
    },
  );

  app.post(
    "/:namespace/block-reports",
    {
      onRequest: [app.requireRole("member")],
      schema: {
        summary: "Report a file the client held back because it holds a credential (metadata only)",
        params: NamespaceParams,
        body: BlockReport,
        response: { 202: z.object({ accepted: z.literal(true) }), ...errorReplies },
      },
    },
    async (request, reply) => {
      const { path, findings, clientId, fingerprintKeyId } = request.body;
      const key = await app.teamPolicy.fingerprintKey(request.auth.teamId);
      if (fingerprintKeyId !== undefined && fingerprintKeyId !== key.id) {
        throw new Refusal("fingerprint_key_stale", `fingerprint key ${fingerprintKeyId} was rotated away; the team's key is ${key.id}: fetch the scan policy and scan again`, {
          currentKeyId: key.id,
        });
      }
      // Catalog labels, never the client's; fingerprints only when made with the team's current key.
      const audited = blockReportFindings(findings, key.key).map(({ fingerprint, ...f }) => (fingerprintKeyId === undefined ? f : { ...f, fingerprint }));
      const ns = await ensureCallerNamespace(app, request, request.params.namespace);
      await recordAuditEvent(app.db, {
        teamId: ns.teamId,
        actor: { id: request.auth.principalId, name: request.auth.principalName },
        kind: "client_blocked",
        namespace: ns.name,
        path, // stored redacted (audit/events.ts)
        clientId: clientId ?? null,
        findings: audited,
        fingerprintKeyId: fingerprintKeyId ?? null,
      });
      return reply.status(202).send({ accepted: true });
    },
  );

  await app.register(writeRoutes);
  await app.register(readRoutes);
  await app.register(reconcileRoutes);
  await app.register(streamRoutes);
};

export default namespaceRoutes;
