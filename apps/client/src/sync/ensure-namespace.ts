/**
 * Creating the namespace a request found missing (404), for `sync`, `push` and a reconciliation:
 * one place decides what a 404 means, with the words `init` uses too (`namespaceNotFound`).
 */
import { isNoRoute, namespaceNotFound, ServerError } from "../errors.js";
import type { Api } from "../http/api.js";

/**
 * After `notFound` (a 404 to a request of `namespace`): creates the namespace (PUT, idempotent).
 * @throws ServerError `not_found` worded by {@link namespaceNotFound}: when the 404 was the server's
 *   "no route" (the server URL's path is wrong; nothing is created), or the namespace does not exist
 *   and this token may not create it (403 to the PUT: a reader's). Any other failure of the PUT as is.
 */
export async function createMissingNamespace(api: Api, namespace: string, notFound: ServerError): Promise<void> {
  if (isNoRoute(notFound)) throw namespaceNotFound(notFound, namespace, false);
  try {
    await api.ensureNamespace();
  } catch (err) {
    if (err instanceof ServerError && err.code === "not_found") throw namespaceNotFound(err, namespace, false);
    if (err instanceof ServerError && err.code === "forbidden") throw namespaceNotFound(notFound, namespace, true);
    throw err;
  }
}
