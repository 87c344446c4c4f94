import type { FastifyRequest } from "fastify";
import type { Actor } from "../audit/events.js";

/** The audit actor of an authenticated request: always the token's user, never anything from the body. */
export function actorOf(request: FastifyRequest): Actor {
  return { id: request.auth.principalId, name: request.auth.principalName };
}
