// The dashboard's connections: one per server (per V1 session: tasks are bound to it), shared by all its tasks,
// each with the engine that follows them. A connection that fails is opened again by the next task that needs it.
import type { Context } from "../context.js";
import { descriptorKey, type ServerDescriptor } from "../protocol/server.js";
import { connectionScope, type Wire } from "../protocol/wire.js";
import type { Handle } from "../model.js";
import { TaskEngine } from "../tasks/engine.js";
import type { InputProvider } from "../tasks/input.js";
import { saveMoves, type TrackedTask } from "../tasks/tracker.js";

export interface ServerLink {
  wire?: Promise<Wire>;
  engine?: TaskEngine;
}

export class ServerLinks {
  private readonly links = new Map<string, ServerLink>();

  constructor(
    private readonly ctx: Context,
    private readonly provider: InputProvider,
    /** The followed task of that id on that server (descriptorKey): its handle is updated when its wire moves it. */
    private readonly trackedOf: (taskId: string, server: string) => TrackedTask | undefined,
    private readonly notify: (text: string) => void,
  ) {}

  /** One connection per server (per V1 session: tasks are bound to it), shared by all its tasks. */
  link(descriptor: ServerDescriptor, name: string, handle?: Handle): ServerLink {
    const key = `${descriptorKey(descriptor)}|${handle ? connectionScope(handle.resume) : ""}`;
    let link = this.links.get(key);
    if (!link) {
      link = {};
      this.links.set(key, link);
    }
    if (!link.wire) {
      link.wire = this.ctx.connect(descriptor, name, handle ? { resume: handle.resume } : { outlive: true });
      const server = descriptorKey(descriptor);
      link.wire.then(
        (wire) => {
          saveMoves(wire, (taskId) => this.trackedOf(taskId, server), this.notify);
          link!.engine = new TaskEngine(wire, this.ctx.clock, this.provider);
        },
        () => (link!.wire = undefined),
      );
    }
    return link;
  }

  async engineFor(handle: Handle): Promise<TaskEngine> {
    const link = this.link(handle.server.descriptor, handle.server.name, handle);
    await link.wire;
    return link.engine!;
  }

  async close(): Promise<void> {
    await Promise.all([...this.links.values()].map(async (link) => (await link.wire?.catch(() => undefined))?.close()));
  }
}
