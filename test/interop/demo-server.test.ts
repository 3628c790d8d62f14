// The demo server (demo-server/) driven by mcp-task's own protocol layer (connect + TaskEngine), on both generations,
// over HTTP (in-process) and stdio (a child: dist/test-servers/demo-server-main.js): the invoice through one and
// two questions (structuredContent checked against the outputSchema by the engine), a rejection, the failing
// sync, cancelling the export, the immediate lookup, and a restart of the server mid-task.
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoServer, type DemoGeneration, type DemoServer } from "../../demo-server/index.js";
import { systemClock } from "../../src/context.js";
import { UsageError } from "../../src/errors.js";
import { connect } from "../../src/protocol/connect.js";
import type { ServerDescriptor } from "../../src/protocol/server.js";
import type { InputRequest, InputResponse, Snapshot, Wire } from "../../src/protocol/wire.js";
import { TaskEngine } from "../../src/tasks/engine.js";
import type { FinalOutcome } from "../../src/model.js";
import { preparedAnswers, type InputProvider } from "../../src/tasks/input.js";
import { ROOT, freePort } from "../helpers/servers.js";

const DEMO_MAIN = join(ROOT, "dist/test-servers/demo-server-main.js");
/** Five times faster than the real pace: the invoice's own work takes about 1.5 s. */
const FAST = { speed: 5, pollIntervalMs: 200 };

/** A test of a group whose tests run in order. */
const serial = it.sequential;

const tempStore = () => mkdtempSync(join(tmpdir(), "mcp-task-demo-store-"));

/** The engine of each wire: one answers a wire's questions at a time, so a new one takes over from the last. */
const engines = new WeakMap<Wire, TaskEngine>();
function engineOn(wire: Wire, input: InputProvider): TaskEngine {
  engines.get(wire)?.release();
  const engine = new TaskEngine(wire, systemClock, input);
  engines.set(wire, engine);
  return engine;
}

/** Prepared answers that also record each question asked. */
function recording(answer: {
  input?: Record<string, unknown>;
  decline?: boolean;
}): InputProvider & { asked: string[] } {
  const inner = preparedAnswers(answer);
  const asked: string[] = [];
  return {
    asked,
    available: inner.available,
    answer: (request: InputRequest, taskId: string | null, signal?: AbortSignal): Promise<InputResponse> => {
      asked.push(String(request.params.message ?? request.method));
      return inner.answer(request, taskId, signal);
    },
  };
}

interface Run {
  final: FinalOutcome;
  seen: Snapshot[];
  asked: string[];
  taskId: string;
}

/** Calls a task tool and follows it to its end, answering its questions from `answers`. */
async function runTask(
  wire: Wire,
  tool: string,
  args: Record<string, unknown>,
  answers: Record<string, unknown> = {},
): Promise<Run> {
  const input = recording({ input: answers });
  const engine = engineOn(wire, input);
  const started = await engine.call(tool, args, { task: "auto" });
  if (started.kind !== "task") throw new Error(`${tool} answered without a task`);
  const taskId = started.snapshot.taskId;
  const seen: Snapshot[] = [started.snapshot];
  for await (const snapshot of engine.watch(taskId, { answerInput: true, signal: AbortSignal.timeout(30_000) }))
    seen.push(snapshot);
  return { final: await engine.final(seen.at(-1)!, tool), seen, asked: input.asked, taskId };
}

const structured = (run: Run) => run.final.result?.structuredContent as Record<string, unknown>;

/** The checks every transport and generation must pass, against a connected wire. */
function demoBehaviour(generation: DemoGeneration, wireOf: () => Wire) {
  serial("lists the demo tools, with their task support on V1", async () => {
    const tools = await wireOf().listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.taskSupport]));
    expect(Object.keys(support).sort()).toEqual(["export_ledger", "lookup_po", "process_invoice", "sync_ledger"]);
    if (generation === "v1")
      expect(support).toEqual({
        lookup_po: "forbidden",
        process_invoice: "required",
        sync_ledger: "required",
        export_ledger: "required",
      });
    else expect(new Set(Object.values(support))).toEqual(new Set(["server"]));
    expect(tools.find((t) => t.name === "process_invoice")!.outputSchema).toMatchObject({ type: "object" });
  });

  serial("answers lookup_po at once, without a task, with structured content", async () => {
    const engine = engineOn(wireOf(), preparedAnswers({}));
    const started = await engine.call("lookup_po", { po_number: "PO-1001" }, { task: "auto" });
    expect(started.kind).toBe("result");
    if (started.kind !== "result") return;
    expect(started.outcome.taskId).toBeNull();
    expect(started.outcome.outputProblem).toBeUndefined();
    expect(started.outcome.result!.structuredContent).toMatchObject({
      po_number: "PO-1001",
      supplier: "Acme Office Supplies",
      currency: "EUR",
      total: 1250,
    });
    expect(started.outcome.result!.content[0].text).toContain("Acme Office Supplies");
  });

  serial("processes an invoice that matches its PO through one approval question", async () => {
    const run = await runTask(
      wireOf(),
      "process_invoice",
      { invoice_id: "INV-2041", po_number: "PO-1001", amount: 1250 },
      { approve: true, comment: "ok, goods checked" },
    );
    expect(run.asked).toHaveLength(1);
    expect(run.asked[0]).toMatch(/^Approve invoice INV-2041 from Acme Office Supplies for 1,250.00 EUR/);
    const messages = run.seen.map((s) => s.statusMessage ?? "");
    // The steps' messages as the server sets them (which of its short steps a read meets depends on the machine's
    // pace: a loaded one met only some).
    expect(
      messages.some((m) => /^(recording goods received for PO-1001|validating INV-2041 against the ERP)/.test(m)),
    ).toBe(true);
    expect(run.seen.map((s) => s.status)).toContain("input_required");
    expect(run.final.status).toBe("completed");
    expect(run.final.outputProblem).toBeUndefined();
    expect(structured(run)).toMatchObject({
      invoice_id: "INV-2041",
      status: "posted",
      posted_amount: 1250,
      currency: "EUR",
      approved: true,
      approver_comment: "ok, goods checked",
      exception: null,
    });
    expect(structured(run).journal_entry_id).toMatch(/^JE-2026-\d{6}$/);
    expect(run.final.result!.content[0].text).toMatch(/^INV-2041 posted: 1,250.00 EUR against PO-1001/);
  });

  serial("asks a second question when the invoice differs from its PO, and follows the decision", async () => {
    const run = await runTask(
      wireOf(),
      "process_invoice",
      { invoice_id: "INV-2042", po_number: "PO-1001", amount: 1287.4 },
      { approve: true, comment: "freight added", action: "post", note: "agreed with purchasing" },
    );
    expect(run.asked).toHaveLength(2);
    expect(run.asked[1]).toMatch(
      /INV-2042 is 1,287.40 EUR but PO-1001 is 1,250.00 EUR \(\+37.40, \+3%\)\. Post it anyway/,
    );
    expect(run.final.status).toBe("completed");
    expect(run.final.outputProblem).toBeUndefined();
    expect(structured(run)).toMatchObject({
      status: "posted",
      posted_amount: 1287.4,
      po_amount: 1250,
      difference: 37.4,
      exception: { reasons: ["amount_mismatch"], decision: "post", note: "agreed with purchasing" },
    });
  });

  serial("asks again when the amount exceeds the approver's limit; holding it posts nothing", async () => {
    const run = await runTask(
      wireOf(),
      "process_invoice",
      { invoice_id: "INV-2043", po_number: "PO-1002", amount: 8400 },
      { approve: true, amount_limit: 5000, action: "hold" },
    );
    expect(run.asked).toHaveLength(2);
    expect(run.asked[1]).toContain("exceeds your approval limit of 5,000.00 USD");
    expect(run.final.outputProblem).toBeUndefined();
    expect(structured(run)).toMatchObject({
      status: "held",
      posted_amount: 0,
      journal_entry_id: null,
      exception: { reasons: ["over_limit"], decision: "hold" },
    });
  });

  serial("completes a rejected invoice with status rejected (not a tool error)", async () => {
    const run = await runTask(
      wireOf(),
      "process_invoice",
      { invoice_id: "INV-2044", po_number: "PO-1005", amount: 642.8 },
      { approve: false, comment: "duplicate of INV-2039" },
    );
    expect(run.asked).toHaveLength(1);
    expect(run.final.status).toBe("completed");
    expect(run.final.result!.isError).toBeFalsy();
    expect(run.final.outputProblem).toBeUndefined();
    expect(structured(run)).toMatchObject({
      status: "rejected",
      approved: false,
      posted_amount: 0,
      approver_comment: "duplicate of INV-2039",
    });
  });

  serial("fails sync_ledger with a clear JSON-RPC error after its retries", async () => {
    const run = await runTask(wireOf(), "sync_ledger", {});
    expect(run.final.status).toBe("failed");
    expect(run.final.error).toMatchObject({ code: -32603, data: { host: "erp.demo.invalid", retryable: true } });
    expect(run.final.error!.message).toMatch(/^ERP connection refused \(simulated\)/);
    // Its attempts as it goes (which one a read meets depends on the machine's pace: a loaded one met another).
    expect(run.seen.map((s) => s.statusMessage ?? "").some((m) => /attempt \d of 3/.test(m))).toBe(true);
  });

  serial("cancels the export while it reports its progress", async () => {
    const engine = engineOn(wireOf(), preparedAnswers({}));
    const started = await engine.call("export_ledger", {}, { task: "auto" });
    if (started.kind !== "task") throw new Error("expected a task");
    let progress: Snapshot | undefined;
    for await (const snapshot of engine.watch(started.snapshot.taskId, { signal: AbortSignal.timeout(20_000) })) {
      if (/^exported [1-9][\d,]*\/50,000 rows/.test(snapshot.statusMessage ?? "")) {
        progress = snapshot;
        break;
      }
    }
    expect(progress?.status).toBe("working");
    const after = await engine.cancel(started.snapshot.taskId);
    expect(after.status).toBe("cancelled");
    const again = await wireOf().getTask(started.snapshot.taskId);
    expect(again.status).toBe("cancelled");
  });

  serial(
    "runs process_invoice only as a task (V1: -32601 without params.task; V2: -32021 without the extension)",
    async () => {
      const call = wireOf().callTool(
        "process_invoice",
        { invoice_id: "INV-1", po_number: "PO-1001", amount: 1250 },
        { task: "never" },
      );
      if (generation === "v1") await expect(call).rejects.toMatchObject({ rpcCode: -32601 });
      else await expect(call).rejects.toBeInstanceOf(UsageError);
    },
  );

  serial("refuses bad arguments with -32602", async () => {
    const engine = engineOn(wireOf(), preparedAnswers({}));
    await expect(
      engine.call("process_invoice", { invoice_id: "INV-1", po_number: "1001", amount: 10 }, { task: "auto" }),
    ).rejects.toMatchObject({ rpcCode: -32602 });
  });
}

const GENERATIONS: DemoGeneration[] = ["v2", "v1"];

// The four groups of each generation over each transport run side by side (each on a server and a wire of its own,
// waiting mostly on the server's paced work), each group's tests one after another (`serial`: one engine answers a
// wire's questions at a time). The restarts run after them, one at a time: each must restart its server within a
// phase of its task.

describe.each(GENERATIONS)("demo server %s over HTTP", { concurrent: true }, (generation) => {
  let server: DemoServer;
  let wire: Wire;
  const logged: string[] = [];
  beforeAll(async () => {
    server = await startDemoServer(
      { transport: "http", port: 0 },
      { generation, storeDir: tempStore(), ...FAST, log: (line) => logged.push(line) },
    );
    wire = await connect({ transport: "http", url: server.url! }, { env: {} });
  });
  afterAll(async () => {
    await wire?.close();
    await server?.close();
  });

  serial("is detected as the right generation, on 127.0.0.1", () => {
    expect(wire.capabilities.generation).toBe(generation);
    expect(wire.capabilities.canListTasks).toBe(generation === "v1");
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  demoBehaviour(generation, () => wire);

  if (generation === "v1")
    serial("lists its tasks (tasks/list), with the ttl and poll interval it gave them", async () => {
      const page = await wire.listTasks();
      expect(page.tasks.length).toBeGreaterThanOrEqual(6);
      expect(page.tasks.every((t) => t.ttlMs === 3_600_000 && t.pollIntervalMs === 200)).toBe(true);
    });

  serial("logged no SDK or HTTP error meanwhile", () => {
    expect(logged.filter((line) => /^(sdk|http):/.test(line))).toEqual([]);
    expect(logged.some((line) => line.includes("-> input_required"))).toBe(true);
  });
});

describe.each(GENERATIONS)("demo server %s over stdio", { concurrent: true }, (generation) => {
  let wire: Wire;
  const storeDir = tempStore();
  const descriptor = (): ServerDescriptor => ({
    transport: "stdio",
    command: process.execPath,
    args: [
      DEMO_MAIN,
      "--stdio",
      "--store",
      storeDir,
      "--generation",
      generation,
      "--speed",
      String(FAST.speed),
      "--poll-interval",
      String(FAST.pollIntervalMs),
      "--quiet",
    ],
  });
  beforeAll(async () => {
    if (!existsSync(DEMO_MAIN)) throw new Error(`${DEMO_MAIN} is missing: run node scripts/build.mjs first`);
    wire = await connect(descriptor(), { env: process.env });
  });
  afterAll(async () => {
    await wire?.close();
  });

  serial("is detected as the right generation", () => {
    expect(wire.capabilities.generation).toBe(generation);
  });

  demoBehaviour(generation, () => wire);

  serial("pushes task updates (V1 notifications/tasks/status, V2 notifications/tasks)", async () => {
    const pushed: Snapshot[] = [];
    const engine = engineOn(wire, preparedAnswers({}));
    const started = await engine.call("sync_ledger", { ledger: "general" }, { task: "auto" });
    if (started.kind !== "task") throw new Error("expected a task");
    const stop = await wire.watchNotifications([started.snapshot.taskId], (snapshot) => pushed.push(snapshot));
    try {
      for await (const snapshot of engine.watch(started.snapshot.taskId, { signal: AbortSignal.timeout(20_000) }))
        void snapshot;
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      stop();
    }
    const mine = pushed.filter((s) => s.taskId === started.snapshot.taskId);
    // Pushed as the attempts go (which attempts, depends on when the subscription came: a loaded machine's came late).
    expect(mine.map((s) => s.statusMessage ?? "").some((m) => /attempt \d of 3/.test(m))).toBe(true);
    expect(mine.at(-1)!.status).toBe("failed");
  });
});

describe.each(GENERATIONS)("demo server %s restarted mid-task (HTTP, same store)", (generation) => {
  let storeDir: string;
  let port: number;
  let server: DemoServer | undefined;
  /** Twice the real pace while a restart must fall inside a phase of the task; the fast pace once it need not. */
  let speed = 2;
  const start = async () =>
    (server = await startDemoServer({ transport: "http", port }, { generation, storeDir, speed, pollIntervalMs: 200 }));
  /** Stops the server, keeps it down for a moment (the client also notices its kept-alive sockets are gone), starts it again. */
  const restart = async () => {
    await server!.close();
    // process-timing: the server's own down time is what is tested (its clients see it gone, then back).
    await new Promise((resolve) => setTimeout(resolve, 300));
    await start();
  };
  beforeAll(async () => {
    storeDir = tempStore();
    port = await freePort();
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A task's `input`-gated questions: records them and answers once `open` resolves. */
  function gatedApproval(open: Promise<void>, comment: string) {
    const questions: string[] = [];
    let first!: () => void;
    const asked = new Promise<void>((resolve) => (first = resolve));
    const input: InputProvider = {
      available: true,
      answer: async (request) => {
        questions.push(String(request.params.message));
        first();
        await open;
        return { action: "accept", content: { approve: true, comment } };
      },
    };
    return { input, questions, asked };
  }

  async function follow(engine: TaskEngine, taskId: string): Promise<FinalOutcome> {
    const seen: Snapshot[] = [];
    for await (const snapshot of engine.watch(taskId, { answerInput: true, signal: AbortSignal.timeout(45_000) }))
      seen.push(snapshot);
    return engine.final(seen.at(-1)!, "process_invoice");
  }

  it("restarted while the task works: the same connection follows it to the end", async () => {
    await start();
    const wire = await connect({ transport: "http", url: server!.url! }, { env: {} });
    try {
      const engine = engineOn(wire, recording({ input: { approve: true, comment: "after the restart" } }));
      const started = await engine.call(
        "process_invoice",
        { invoice_id: "INV-3001", po_number: "PO-1003", amount: 3974.5 },
        { task: "auto" },
      );
      if (started.kind !== "task") throw new Error("expected a task");
      const taskId = started.snapshot.taskId;
      expect(readdirSync(join(storeDir, "tasks"))).toContain(`${taskId}.json`);
      await restart(); // while "recording goods received" (1 s at speed 2)
      // A new connection to the restarted server knows the task, still running (working; or already at its question
      // when a loaded machine took longer than the phase to restart it).
      const other = await connect({ transport: "http", url: server!.url! }, { env: {} });
      try {
        expect(["working", "input_required"]).toContain((await other.getTask(taskId)).status);
      } finally {
        await other.close();
      }
      const final = await follow(engine, taskId);
      expect(final.status).toBe("completed");
      expect(final.outputProblem).toBeUndefined();
      expect(final.result!.structuredContent).toMatchObject({
        invoice_id: "INV-3001",
        status: "posted",
        approver_comment: "after the restart",
      });
    } finally {
      await wire.close();
    }
  });

  it("restarted while a question waits: the question is asked again and the task completes", async () => {
    // Restarted once the question is asked, whenever that is: the task's phases may be short.
    speed = FAST.speed;
    await restart();
    let wire = await connect({ transport: "http", url: server!.url! }, { env: {} });
    try {
      let open!: () => void;
      const gate = gatedApproval(new Promise<void>((resolve) => (open = resolve)), "approved across a restart");
      let engine = engineOn(wire, gate.input);
      const started = await engine.call(
        "process_invoice",
        { invoice_id: "INV-3002", po_number: "PO-1004", amount: 12000 },
        { task: "auto" },
      );
      if (started.kind !== "task") throw new Error("expected a task");
      const taskId = started.snapshot.taskId;
      const stop = new AbortController();
      const watching = (async () => {
        for await (const snapshot of engine.watch(taskId, { answerInput: true, signal: stop.signal })) void snapshot;
      })().catch(() => {});
      await gate.asked;
      if (generation === "v2") {
        // V2: the question (key approval-1) is kept with the task; the answer given later reaches the restarted server.
        stop.abort();
        await watching;
        await restart();
        open();
        engine = engineOn(wire, gate.input);
      } else {
        // V1: the question was sent on the first server's tasks/result stream. The client goes away (as a
        // process would, keeping its session id), the server restarts, and the client comes back on its session.
        const token = wire.resumeToken();
        stop.abort();
        await watching;
        await wire.close();
        await restart();
        wire = await connect({ transport: "http", url: server!.url! }, { env: {}, resume: token });
        open();
        engine = engineOn(wire, gate.input);
      }
      const final = await follow(engine, taskId);
      expect(final.status).toBe("completed");
      expect(final.outputProblem).toBeUndefined();
      expect(final.result!.structuredContent).toMatchObject({
        invoice_id: "INV-3002",
        status: "posted",
        approver_comment: "approved across a restart",
      });
      expect(gate.questions[0]).toMatch(/^Approve invoice INV-3002/);
      // V2 lists the question on every tasks/get, V1 asks it again on the reopened tasks/result: either way the
      // restarted server asked it again.
      expect(gate.questions.length).toBeGreaterThanOrEqual(generation === "v1" ? 2 : 1);
    } finally {
      await wire.close();
    }
  });
});
