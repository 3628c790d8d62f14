// Writing what an owner of tasks sees onto their handles, whether or not a command follows them: status changes
// and, once a task ends, its final outcome (read once when the terminal state came without it). The broker uses it
// so that a task's outcome outlives the broker: a later `result`, `watch` or `get` reads it from the handle.
import type { Clock } from "../model.js";
import { descriptorKey, type ServerDescriptor } from "../protocol/server.js";
import { isTerminal, type Progress, type Snapshot, type ToolInfo, type Wire } from "../protocol/wire.js";
import type { HandleStore } from "../store/handles.js";
import { fileStem } from "../store/handle-file.js";
import { settle } from "./settle.js";
import { TrackedTask } from "./tracker.js";

/** How often, and how long, a handle that does not exist yet is looked for (the command saves it after the reply). */
const HANDLE_RETRY_MS = 500;
const HANDLE_RETRIES = 40;

export class Recorder {
  private readonly tracked = new Map<string, TrackedTask>();
  /** Per task: the write in progress (writes of one task run in order). */
  private readonly chains = new Map<string, Promise<void>>();
  /** Tasks seen terminal whose outcome is not written yet: an owner must not leave while there are any. */
  private readonly unwritten = new Set<string>();
  private tools?: Promise<ToolInfo[]>;

  constructor(
    private readonly wire: Wire,
    private readonly store: HandleStore,
    private readonly clock: Clock,
    private readonly server: ServerDescriptor,
  ) {}

  /** Outcomes seen and not yet written. */
  get pending(): number {
    return this.unwritten.size;
  }

  /** Records a snapshot of a task (in order with the task's earlier ones); never throws. */
  record(snapshot: Snapshot): Promise<void> {
    if (isTerminal(snapshot.status)) this.unwritten.add(snapshot.taskId);
    const previous = this.chains.get(snapshot.taskId) ?? Promise.resolve();
    const next = previous.then(() => this.write(snapshot, 0)).catch(() => {});
    this.chains.set(snapshot.taskId, next);
    return next;
  }

  /**
   * The server says it does not know the task (or its ttl passed while it ran): the handle says so, unless its
   * outcome is written, so that a later command answers "not found" rather than "its server exited".
   */
  gone(taskId: string, reason: string): Promise<void> {
    const previous = this.chains.get(taskId) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        const tracked = this.find(taskId);
        if (!tracked) return;
        tracked.handle = this.store.load(tracked.stem) ?? tracked.handle;
        if (!tracked.handle.outcome) await tracked.markGone(reason, true);
      })
      .catch(() => {});
    this.chains.set(taskId, next);
    return next;
  }

  private async write(snapshot: Snapshot, attempt: number): Promise<void> {
    const tracked = this.find(snapshot.taskId);
    if (!tracked) {
      // A new task's handle is saved by the command once the broker has answered it (by the broker first, where the
      // command had left: broker/requests.ts): look again shortly. A task nobody saved (after as many tries) has
      // nothing to write to.
      if (isTerminal(snapshot.status) && attempt < HANDLE_RETRIES) {
        await this.clock.sleep(HANDLE_RETRY_MS);
        return this.write(snapshot, attempt + 1);
      }
      this.unwritten.delete(snapshot.taskId);
      return;
    }
    try {
      await tracked.observe(snapshot);
      if (!isTerminal(snapshot.status)) return;
      // A command following the task may have written the outcome already.
      tracked.handle = this.store.load(tracked.stem) ?? tracked.handle;
      if (tracked.handle.outcome) return;
      await settle(tracked, snapshot, { wire: this.wire, tool: (name) => this.tool(name) });
    } finally {
      if (isTerminal(snapshot.status)) this.unwritten.delete(snapshot.taskId);
    }
  }

  /** The tool `name` of the server, for the outputSchema check (listed once). */
  private async tool(name: string): Promise<ToolInfo | undefined> {
    return (await (this.tools ??= this.wire.listTools().catch(() => []))).find((tool) => tool.name === name);
  }

  private find(taskId: string): TrackedTask | undefined {
    const known = this.tracked.get(taskId);
    if (known) return known;
    const stem = fileStem(taskId, descriptorKey(this.server));
    let handle;
    try {
      handle = this.store.load(stem);
    } catch {
      return undefined;
    }
    if (!handle || handle.taskId !== taskId || descriptorKey(handle.server.descriptor) !== descriptorKey(this.server))
      return undefined;
    const tracked = new TrackedTask(this.store, this.clock, stem, handle);
    this.tracked.set(taskId, tracked);
    return tracked;
  }

  /** Keeps the last progress of a task on its handle (batched like status messages); none before it is saved. */
  progressed(taskId: string, progress: Progress): void {
    this.find(taskId)?.progressed(progress);
  }

  /** Writes what is still batched (status messages) now. */
  async flush(): Promise<void> {
    await Promise.all([...this.chains.values()]);
    await Promise.all([...this.tracked.values()].map((tracked) => tracked.flush().catch(() => {})));
  }
}
