// Where a new task's handle goes when the store cannot take it (a full disk, a read-only home): the task exists on
// its server, and without a handle no command can reach it again. It is written, as `export` prints it (no
// credentials), to a private folder of this user's under the temp folder, `<tmp>/mcp-task-<uid>/unsaved/`, checked
// as the brokers' socket folder is (a real folder, owned by this user, 0700), for `import` to save once the store
// has room again. Best effort: undefined when that cannot be written either.
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Handle } from "../model.js";
import { writeOwnFile } from "./safe-fs.js";
import { ensurePrivateDir } from "./settings.js";

/** Writes `handle` (already stripped of credentials) to the rescue folder; its path, or undefined. */
export function rescueHandle(stem: string, handle: Handle): string | undefined {
  const uid = process.getuid?.();
  for (const base of new Set([tmpdir(), "/tmp"])) {
    try {
      const own = join(base, `mcp-task-${uid ?? "user"}`);
      ensurePrivateDir(own, { uid }, true);
      const dir = join(own, "unsaved");
      ensurePrivateDir(dir, { uid }, true);
      const file = join(dir, `${stem}.json`);
      writeOwnFile(file, `${JSON.stringify(handle)}\n`);
      return file;
    } catch {
      /* the next folder, or none */
    }
  }
  return undefined;
}
