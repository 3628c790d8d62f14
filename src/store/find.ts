// Finding a saved task by what a user types: its id, a unique prefix, or the id as it was shown.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { TaskNotFoundError, UsageError } from "../errors.js";
import type { Handle, HandleSummary } from "../model.js";
import { sanitizeLine, shellValue } from "../sanitize.js";
import { fileStem, readHandle } from "./handle-file.js";

const MIN_PREFIX = 4;

/** What a lookup reads of the store: its directory, and the summaries of its handles. */
export interface Findable {
  readonly dir: string;
  summaries(): Promise<HandleSummary[]>;
}

/**
 * Finds one handle by task id or unique prefix (at least 4 characters; a shorter word only as a whole id). When no
 * id starts with the word, ids are matched as they are shown (list, hints, `call --detach`: sanitizeLine), since
 * one with control characters cannot be typed or pasted. `server` (a server's name as `list` shows it) keeps
 * only that server's handles: the same id can be saved for two servers.
 */
export async function findHandle(
  store: Findable,
  idOrPrefix: string,
  server?: string,
): Promise<{ stem: string; handle: Handle }> {
  // Only the files whose names can hold such an id: its encoded form, up to where a long id's name is cut.
  const encoded = fileStem(idOrPrefix, "").slice(0, -1).replace(/~.*$/, "").slice(0, 100);
  const names = (await readdir(store.dir)).filter(
    (name) => name.endsWith(".json") && !name.startsWith(".") && name.startsWith(encoded),
  );
  const ofServer = (handle: Handle) => server === undefined || handle.server.name === server;
  let matches = await readMatching(
    store.dir,
    names,
    (handle) => handle.taskId.startsWith(idOrPrefix) && ofServer(handle),
  );
  if (matches.length === 0) {
    const shown = (await store.summaries()).filter((s) => sanitizeLine(s.taskId).startsWith(idOrPrefix));
    matches = await readMatching(
      store.dir,
      shown.map((s) => `${s.stem}.json`),
      (handle) => sanitizeLine(handle.taskId).startsWith(idOrPrefix) && ofServer(handle),
    );
  }
  const exact = matches.filter((m) => m.handle.taskId === idOrPrefix || sanitizeLine(m.handle.taskId) === idOrPrefix);
  if (exact.length === 1) return exact[0];
  if (idOrPrefix.length < MIN_PREFIX)
    throw new UsageError(`a task id prefix needs at least ${MIN_PREFIX} characters: ${idOrPrefix}`);
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) {
    const of = server === undefined ? "" : ` of server ${server}`;
    throw new TaskNotFoundError(`no saved task${of} matches ${idOrPrefix}`, "see the saved tasks with: mcp-task list");
  }
  const shown = matches
    .slice(0, 5)
    .map((m) => `${m.handle.taskId} (${m.handle.server.name})`)
    .join(", ");
  // The same id saved for two servers: more characters cannot tell them apart, the server can.
  const sameId = new Set(matches.map((m) => m.handle.taskId)).size === 1;
  const fix = sameId
    ? `pick one by its server, as in: -s ${shellValue(matches[0].handle.server.name)}`
    : "give more characters of the id, or its server with -s <name>";
  throw new UsageError(`${idOrPrefix} matches ${matches.length} saved tasks: ${shown}`, fix);
}

/** The handles among `names` that `wanted` picks; unreadable files are no match. */
async function readMatching(
  dir: string,
  names: string[],
  wanted: (handle: Handle) => boolean,
): Promise<Array<{ stem: string; handle: Handle }>> {
  const out: Array<{ stem: string; handle: Handle }> = [];
  for (const name of names) {
    try {
      const handle = readHandle(join(dir, name));
      if (wanted(handle)) out.push({ stem: name.slice(0, -5), handle });
    } catch {
      /* unreadable or just removed: not a match */
    }
  }
  return out;
}
