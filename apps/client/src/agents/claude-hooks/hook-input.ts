/**
 * What a Claude Code hook receives on standard input (https://code.claude.com/docs/en/hooks,
 * "Hook input"): a JSON object with `session_id`, `transcript_path`, `cwd`, `hook_event_name`, and
 * for tool events `tool_name` and `tool_input` (Write: `file_path`, `content`; Edit: `file_path`,
 * `old_string`, `new_string`, `replace_all`; MultiEdit: `file_path`, `edits[]` of the same).
 * Read leniently: unknown fields are ignored, a missing field is absent.
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { UsageError } from "../../errors.js";
import type { Io } from "../../commands/common.js";
import { realish } from "../../local/team-path.js";

const Edit = z.object({ old_string: z.string(), new_string: z.string(), replace_all: z.boolean().optional() });

export const HookInput = z.looseObject({
  hook_event_name: z.string().optional(),
  cwd: z.string().optional(),
  tool_name: z.string().optional(),
  tool_input: z
    .looseObject({
      file_path: z.string().optional(),
      content: z.string().optional(),
      old_string: z.string().optional(),
      new_string: z.string().optional(),
      replace_all: z.boolean().optional(),
      edits: z.array(Edit).optional(),
    })
    .optional(),
});
export type HookInput = z.infer<typeof HookInput>;

/** Largest hook input read: a Write of the largest team file, JSON-escaped, with room to spare. */
const MAX_HOOK_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * Reads and parses the hook's standard input.
 * @throws UsageError when there is none, it is too large, or it is not a JSON object (the message
 *   never quotes the input: it may hold file content).
 */
export async function readHookInput(io: Io): Promise<HookInput> {
  if (!io.readStdin) throw new UsageError("--hook: there is no standard input to read the hook's JSON from");
  const bytes = await io.readStdin(MAX_HOOK_INPUT_BYTES);
  if (bytes.length > MAX_HOOK_INPUT_BYTES) throw new UsageError("--hook: the hook's input is too large");
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new UsageError("--hook: the hook's input is not JSON");
  }
  const parsed = HookInput.safeParse(json);
  if (!parsed.success) throw new UsageError("--hook: the hook's input is not a Claude Code hook object");
  return parsed.data;
}

/**
 * The absolute path the file a Write/Edit/MultiEdit names lands on, through symlinks ({@link realish}):
 * a write to `notes/x.md` where `notes` links to the memory folder's `team/` is a write to
 * `team/x.md`, and a team file that is a symlink to a file elsewhere is written elsewhere (the sync
 * does not follow it). Undefined when the input names none.
 */
export function toolFilePath(input: HookInput): string | undefined {
  const path = input.tool_input?.file_path;
  if (!path) return undefined;
  return realish(isAbsolute(path) ? resolve(path) : resolve(input.cwd ?? ".", path));
}

/**
 * The memory folder set up for teammem that holds `file` in its team scope: the nearest folder
 * above it with `.teammem/config.json` and `file` under its `team/`. Undefined when none.
 */
export function memoryFolderOf(file: string): string | undefined {
  for (let dir = dirname(file), depth = 0; depth < 64; dir = dirname(dir), depth++) {
    if (existsSync(join(dir, ".teammem", "config.json"))) {
      const team = join(dir, "team");
      return file.startsWith(team + "/") || file.startsWith(team + "\\") ? dir : undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
  return undefined;
}

/**
 * The file's content after the tool call, given its content now (`current`, "" when absent):
 * Write's `content`; Edit's and MultiEdit's replacements applied in order. When an `old_string`
 * is not found (the tool call will fail) its `new_string` is appended, so it is still scanned.
 * Undefined for another tool.
 */
export function contentAfter(input: HookInput, current: string): string | undefined {
  const tool = input.tool_name;
  const args = input.tool_input ?? {};
  if (tool === "Write") return args.content ?? "";
  const edits =
    tool === "Edit" && args.old_string !== undefined && args.new_string !== undefined
      ? [{ old_string: args.old_string, new_string: args.new_string, replace_all: args.replace_all }]
      : tool === "MultiEdit"
        ? (args.edits ?? [])
        : undefined;
  if (!edits) return undefined;
  let text = current;
  for (const edit of edits) {
    if (edit.old_string !== "" && text.includes(edit.old_string))
      text = edit.replace_all ? text.split(edit.old_string).join(edit.new_string) : text.replace(edit.old_string, () => edit.new_string);
    else text = `${text}\n${edit.new_string}`;
  }
  return text;
}
