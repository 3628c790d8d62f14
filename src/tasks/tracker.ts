// A task's handle saved the moment the task exists (`start`), opened from the store (`open`) or brought from
// elsewhere (`adopt`); each is then kept in step with what the engine observes by a TrackedTask (./tracked-task.ts).
import type { Clock, Handle } from "../model.js";
import { ProtocolViolation, StoreUnwritableError } from "../errors.js";
import { descriptorKey, forHandle, withoutCredentials } from "../protocol/server.js";
import type { Snapshot, Wire } from "../protocol/wire.js";
import type { HandleStore } from "../store/handles.js";
import { fileStem } from "../store/handle-file.js";
import { MAX_CLOCK_SKEW_MS } from "../limits.js";
import { sanitizeLine, shellWord } from "../sanitize.js";
import { rescueHandle } from "../store/rescue.js";
import { withoutResult } from "./handle-changes.js";
import { TrackedTask } from "./tracked-task.js";

export { TrackedTask };

export class Tracker {
  constructor(
    readonly store: HandleStore,
    private readonly clock: Clock,
  ) {}

  /** Saves the handle of a task that has just been created, before anything else can fail. */
  async start(
    server: Handle["server"],
    wire: Wire,
    tool: string,
    args: Record<string, unknown>,
    snapshot: Snapshot,
    via?: Handle["via"],
  ): Promise<TrackedTask> {
    const now = new Date(this.clock.now()).toISOString();
    // The server's creation time where it is believable (see expiryBase, tasks/expiry.ts), else when mcp-task saw
    // the task.
    const serverCreated = snapshot.createdAt === undefined ? NaN : Date.parse(snapshot.createdAt);
    const createdAt =
      Math.abs(serverCreated - this.clock.now()) <= MAX_CLOCK_SKEW_MS ? new Date(serverCreated).toISOString() : now;
    const handle: Handle = {
      version: 1,
      taskId: snapshot.taskId,
      // An HTTP server's headers are never copied into a handle: reached again, it takes the saved server's current
      // ones (protocol/server.ts: credentialed), and a handle holds no credential, not even a reference.
      server: { name: server.name, descriptor: forHandle(server.descriptor) },
      resume: wire.resumeToken(),
      tool,
      arguments: args,
      createdAt,
      updatedAt: now,
      ttlMs: snapshot.ttlMs,
      pollIntervalMs: snapshot.pollIntervalMs,
      last: withoutResult(snapshot),
      history: [
        {
          status: snapshot.status,
          ...(snapshot.statusMessage ? { statusMessage: snapshot.statusMessage } : {}),
          at: now,
        },
      ],
      answered: [],
      ...(via ? { via } : {}),
    };
    const stem = fileStem(snapshot.taskId, descriptorKey(server.descriptor));
    let created: boolean;
    try {
      created = await this.store.createNew(stem, handle);
    } catch (error) {
      if (error instanceof StoreUnwritableError) throw notSaved(error, stem, handle);
      throw error;
    }
    // A task id names one task: one the server already gave to a task saved here never replaces that task's handle.
    if (!created) throw await reusedId(this.store, stem, snapshot.taskId);
    return new TrackedTask(this.store, this.clock, stem, handle);
  }

  /** Opens a saved task by id or prefix; `server` (its name as saved) picks among handles of one id on two servers. */
  async open(idOrPrefix: string, server?: string): Promise<TrackedTask> {
    const { stem, handle } = await this.store.find(idOrPrefix, server);
    return new TrackedTask(this.store, this.clock, stem, handle);
  }

  /**
   * Saves a handle brought from elsewhere (`import`) where none is saved for its task: one saved here (however old,
   * whatever the import says of it, readable or not) is left as it is, `kept`. An import adds tasks, never rewrites
   * one: a crafted file could otherwise replace a task's arguments, outcome and history with its own, and `result`
   * print them as the server's.
   */
  async adopt(handle: Handle): Promise<{ tracked: TrackedTask; kept: boolean }> {
    const stem = fileStem(handle.taskId, descriptorKey(handle.server.descriptor));
    const added = await this.store.createNew(stem, handle);
    return { tracked: new TrackedTask(this.store, this.clock, stem, handle), kept: !added };
  }
}

/**
 * The error for a new task whose handle the store could not take (a full disk, a read-only home): the task exists on
 * its server, so the error names it (the command prints its id as --detach does), and the handle goes to the rescue
 * folder (src/store/rescue.ts) for `import` once the store has room; the hint names only commands that can work
 * (without a handle, no `watch` or `get` can find the task).
 */
function notSaved(error: StoreUnwritableError, stem: string, handle: Handle): StoreUnwritableError {
  const { server } = handle;
  const exported = { ...handle, server: { name: server.name, descriptor: withoutCredentials(server.descriptor) } };
  const file = rescueHandle(stem, exported);
  const id = sanitizeLine(handle.taskId);
  const lead = `task ${id} was created on ${sanitizeLine(server.name)}, but its handle could not be saved`;
  const hint = file
    ? `${error.remedy}; then save the task with: mcp-task import --yes ${shellWord(file)} (its handle, kept there), ` +
      `and follow it with: mcp-task watch ${shellWord(handle.taskId)}`
    : `${error.remedy}; the task runs on at its server, but mcp-task cannot reach it without its handle`;
  return error.about(lead, handle.taskId, hint);
}

/**
 * The error for a new task whose id the same server already gave to a task saved here. The two cannot be told apart
 * on the wire (the id is all a read names), so following the new one would mix their states and outcomes into one
 * handle: the call fails (exit 4), the first task's handle is kept as it was.
 */
async function reusedId(store: HandleStore, stem: string, taskId: string): Promise<ProtocolViolation> {
  let first = "";
  try {
    const handle = store.load(stem);
    if (handle)
      first = ` (${sanitizeLine(handle.tool)}, started ${handle.createdAt}, ${handle.outcome?.status ?? handle.last.status})`;
  } catch {
    /* unreadable: named without details */
  }
  return new ProtocolViolation(
    `the server gave the new task the id ${sanitizeLine(taskId)}, which it already gave to another task saved here${first}; ` +
      "mcp-task keeps that task's handle and does not follow this call's task (the server may still run it)",
    // Its own hint, so that no caller adds "follow it again": this call's task cannot be followed, the saved one is
    // another.
    `the task saved before is unchanged: mcp-task get ${shellWord(taskId)} reads it`,
    taskId,
  );
}
