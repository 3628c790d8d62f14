// The tasks of `mcp-task serve`: each call of an agent started through the one start path (startTask, as `call`
// does), its handle saved and marked (Handle.via), then followed here in the background (followTask) while the
// agent's request waits up to --wait for the outcome. A task of an earlier session is found by its handle and
// followed again from there. Questions are answered as the bridge's QuestionMode says: by a person (left where every
// held question waits, for `respond`, `watch` or the dashboard), by the agent through task_answer, or forwarded to
// the agent's user as an elicitation.
import type { Context } from "../context.js";
import type { FinalOutcome } from "../model.js";
import { InputRequiredError, McpTaskError, TaskNotFoundError, UsageError } from "../errors.js";
import { descriptorKey } from "../protocol/server.js";
import { isTerminal, type InputRequest, type InputResponse, type Progress, type Snapshot } from "../protocol/wire.js";
import { shellValue, shellWord } from "../sanitize.js";
import type { InputProvider } from "../tasks/input.js";
import { ServerLinks, type Link } from "../tasks/reconnect.js";
import { followSettings, followTask } from "../tasks/run.js";
import { planStart, startTask } from "../tasks/start.js";
import type { TrackedTask } from "../tasks/tracker.js";
import { BridgeTask, type AgentSide, type QuestionMode, type Served } from "./task.js";

export type { QuestionMode, Served };

/** The error of a question this bridge leaves to a person (see QuestionMode). */
function leftToPerson(taskId: string | null): InputRequiredError {
  return new InputRequiredError(
    "the question is left to a person",
    taskId ? `mcp-task respond ${shellWord(taskId)} --input '{...}', or mcp-task dashboard` : undefined,
    taskId,
  );
}

export class BridgeTasks {
  private readonly links: ServerLinks;
  private readonly tasks = new Map<string, BridgeTask>();
  private readonly life = new AbortController();
  /** The wires whose questions this bridge has taken as its mode says (see prepared). */
  private readonly ready = new WeakSet<object>();

  constructor(
    private readonly ctx: Context,
    private readonly servers: readonly Served[],
    private readonly agent: AgentSide,
    /** Whether the agent may answer through task_answer (--agent-answers). */
    private readonly agentAnswers: boolean,
  ) {
    const provider: InputProvider = {
      available: true,
      answer: (request, taskId, signal) => this.answer(request, taskId, signal),
    };
    this.links = new ServerLinks(ctx, provider, (text) => ctx.io.stderr.write(`mcp-task serve: ${text}\n`));
  }

  /** The connection that starts new calls on `server`. */
  link(server: Served): Promise<Link> {
    return this.links.linkTo(server).then((link) => this.prepared(link));
  }

  /**
   * A link whose questions go as the mode says. With a person answering, this process takes none: the engine lets go
   * of the wire's questions, and one handed to this process (a V1 question, by its broker) is refused at once, which
   * leaves it with the broker for the next command that asks for the task's input (src/broker/questions.ts); a V2
   * server lists its questions, which `respond` answers through a connection of its own.
   */
  private prepared(link: Link): Link {
    if (this.ready.has(link.wire)) return link;
    this.ready.add(link.wire);
    if (this.agent.mode() === "person") {
      link.engine.release();
      link.wire.handleInput(async (_request, taskId) => {
        throw leftToPerson(taskId);
      });
    }
    return link;
  }

  private async answer(request: InputRequest, taskId: string | null, signal?: AbortSignal): Promise<InputResponse> {
    const mode = this.agent.mode();
    if (mode === "elicit") {
      try {
        return await this.agent.elicit(request, signal);
      } catch (error) {
        // A question the agent's client cannot take (a sampling request, a URL where it takes forms only): the
        // agent's own answer, where allowed; else nobody here answers it.
        if (!(error instanceof InputRequiredError) || !taskId) throw error;
      }
    }
    const task = taskId ? this.tasks.get(taskId) : undefined;
    if (!task || mode === "person" || (mode === "elicit" && !this.agentAnswers)) throw leftToPerson(taskId);
    return task.ask(request, signal);
  }

  /**
   * Starts a call as `mcp-task call` does: its result, or its task (saved, marked as started through serve, and
   * followed from now on). `signal`: the agent's cancellation (stops waiting only: a task made meanwhile is kept).
   */
  async call(
    server: Served,
    tool: string,
    args: Record<string, unknown>,
    hooks: { signal?: AbortSignal; progress?: (progress: Progress) => void },
  ): Promise<{ kind: "result"; outcome: FinalOutcome } | { kind: "task"; task: BridgeTask }> {
    const plan = planStart(await this.ctx.loadSettings(), {
      server: { ...server, option: `-s ${shellValue(server.name)}` },
      tool,
      args,
      task: "auto",
      via: "serve",
    });
    const link = await this.link(server);
    let task: BridgeTask | undefined;
    const started = await startTask(link.engine, plan, this.ctx, {
      signal: hooks.signal,
      progress: (progress) => {
        if (task) for (const listener of task.listeners) listener(progress);
        else hooks.progress?.(progress);
      },
    });
    if (started.kind === "result") return started;
    task = this.follow(link, started.tracked, started.first);
    return { kind: "task", task };
  }

  /** Follows `tracked` in the background from `first` (or a fresh read) to its end. */
  private follow(link: Link, tracked: TrackedTask, first: Snapshot | undefined): BridgeTask {
    const task = new BridgeTask(tracked, link);
    if (first) task.last = first;
    this.tasks.set(tracked.taskId, task);
    task.ended = followTask(link.engine, tracked, first, {
      clock: this.ctx.clock,
      signal: this.life.signal,
      settings: followSettings(this.ctx),
      answerInput: this.agent.mode() !== "person",
      hooks: {
        snapshot: (snapshot) => (task.last = snapshot),
        outcome: (outcome) => (task.outcome = outcome),
      },
    }).then(
      (followed) => {
        task.last = followed.last;
        task.outcome ??= followed.outcome;
      },
      (error: unknown) => {
        task.error = error;
        for (const asked of task.asked.values()) asked.reject(new Error("the task is no longer followed"));
        task.asked.clear();
      },
    );
    return task;
  }

  /**
   * A task of this bridge by id (or unique prefix): followed here, or found by its handle (a task an earlier session
   * started through serve, on a server offered now) and followed again. Any other task is refused: serve reaches only
   * the servers the user named, and only the tasks started through it.
   */
  async task(id: string): Promise<BridgeTask> {
    const known = this.tasks.get(id);
    if (known && (known.outcome || !known.error)) return known;
    let tracked: TrackedTask;
    try {
      tracked = await this.ctx.tracker.open(id);
    } catch (error) {
      if (error instanceof McpTaskError) throw new TaskNotFoundError(`no task ${id} of this bridge`, undefined, id);
      throw error;
    }
    const { handle } = tracked;
    const server = this.servers.find((s) => s.name === handle.server.name);
    if (
      handle.via !== "serve" ||
      !server ||
      descriptorKey(server.descriptor) !== descriptorKey(handle.server.descriptor)
    )
      throw new TaskNotFoundError(`no task ${id} of this bridge`, undefined, id);
    if (handle.outcome) {
      const ended = new BridgeTask(tracked, undefined);
      this.tasks.set(tracked.taskId, ended);
      return ended;
    }
    const link = this.prepared(await this.links.linkFor(tracked));
    return this.follow(link, tracked, undefined);
  }

  /** Waits up to `ms` for `task`'s end (or `signal`: the agent cancelled its request); true if it ended. */
  async waitFor(task: BridgeTask, ms: number, signal?: AbortSignal): Promise<boolean> {
    if (task.outcome) return true;
    const stop = new AbortController();
    const abort = () => stop.abort();
    signal?.addEventListener("abort", abort, { once: true });
    await Promise.race([task.ended, this.ctx.clock.sleep(ms, stop.signal)]);
    stop.abort();
    signal?.removeEventListener("abort", abort);
    return task.outcome !== undefined;
  }

  /** Asks the task's server to cancel it; what the server reports then. */
  async cancel(task: BridgeTask): Promise<Snapshot | undefined> {
    if (task.outcome || !task.link) return undefined;
    const reported = await task.link.engine.cancel(task.taskId);
    task.last = reported;
    // A cancelled task's follow sees it end: its outcome is written there (settle).
    if (isTerminal(reported.status)) await this.waitFor(task, 10_000);
    return reported;
  }

  /** Answers the question `key` (or the one waiting) of `task` (mode `agent`, or `elicit` with --agent-answers). */
  async answerQuestion(task: BridgeTask, key: string | undefined, response: InputResponse): Promise<InputRequest> {
    // A question the task's watch has yet to hand over (it reads the task at the server's pace) is waited for a little.
    if (task.asked.size === 0 && !task.outcome && task.last.status === "input_required")
      await task.nextAsked(this.ctx.clock, 10_000);
    const asked = key ? task.asked.get(key) : task.asked.size === 1 ? [...task.asked.values()][0] : undefined;
    if (!asked)
      throw new UsageError(
        task.asked.size > 1
          ? `task ${task.taskId} asks ${task.asked.size} questions: name one by its key`
          : `task ${task.taskId} has no question waiting${key ? ` under the key ${key}` : ""}`,
      );
    task.asked.delete(asked.request.key);
    asked.resolve(response);
    return asked.request;
  }

  /** The handles of the tasks started through serve on the servers offered now, newest first (at most `limit`). */
  async list(limit: number): Promise<BridgeListed[]> {
    const names = new Map(this.servers.map((s) => [s.name, descriptorKey(s.descriptor)]));
    const handles = (await this.ctx.tracker.store.list())
      .map(({ handle }) => handle)
      .filter((h) => h.via === "serve" && names.get(h.server.name) === descriptorKey(h.server.descriptor))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return handles.slice(0, limit).map((h) => ({
      taskId: h.taskId,
      server: h.server.name,
      tool: h.tool,
      status:
        this.tasks.get(h.taskId)?.outcome?.status ??
        this.tasks.get(h.taskId)?.last.status ??
        h.outcome?.status ??
        h.last.status,
      createdAt: h.createdAt,
    }));
  }

  /** Stops following (the tasks go on: on their servers, a stdio server's in its broker) and closes the links. */
  async close(): Promise<void> {
    this.life.abort(new Error("the bridge is closing"));
    await Promise.all([...this.tasks.values()].map((task) => task.ended));
    await this.links.close();
  }
}

export interface BridgeListed {
  taskId: string;
  server: string;
  tool: string;
  status: string;
  createdAt: string;
}
