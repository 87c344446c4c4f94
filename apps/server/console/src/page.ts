/** What every console page gets: the API client and the shared status/error lines. */
import type { Api } from "./api.js";

export interface PageContext {
  api: Api;
  /** The signed-in admin's user name. */
  user: string;
  /** Shows a short confirmation in the status line (a polite live region). */
  status(message: string): void;
  /** Shows an error (an ApiError's message and code) in the alert line. */
  fail(err: unknown): void;
  /** Clears the status and error lines. */
  clear(): void;
}

/** A page renders itself into `root` (emptied first) and returns when its first data is shown. */
export type Page = (ctx: PageContext, root: HTMLElement) => Promise<void>;
