// The list and detail views as pure functions of their props, rendered with ink-testing-library.
import { render } from "ink-testing-library";
import { expect, it } from "vitest";
import { summarize } from "../../src/store/handle-file.js";
import type { Handle } from "../../src/model.js";
import { Detail, detailLines, heldLines } from "../../src/ui/Detail.js";
import type { TaskRow } from "../../src/ui/state.js";
import { visibleRows } from "../../src/ui/rows.js";
import { columnsFor, messageCell, shortId, TaskList, windowStart, type ListRow } from "../../src/ui/TaskList.js";

const NOW = Date.parse("2026-11-29T12:00:00Z");

function handle(i: number, over: Partial<Handle> = {}): Handle {
  const createdAt = new Date(NOW - (i + 1) * 60_000).toISOString();
  return {
    version: 1,
    taskId: `task-${String(i).padStart(4, "0")}-aaaa`,
    server: { name: i % 2 ? "everything" : "v2", descriptor: { transport: "http", url: "http://127.0.0.1:1/mcp" } },
    resume: { generation: i % 2 ? "v1" : "v2", protocolVersion: "2026-07-28", serverName: "s" },
    tool: i % 3 ? "export" : "approve_invoice",
    arguments: { n: i },
    createdAt,
    updatedAt: createdAt,
    ttlMs: 3_600_000,
    pollIntervalMs: 1000,
    last: { taskId: `task-${i}`, status: "working", statusMessage: `step ${i}`, inputRequests: [] },
    history: [{ status: "working", at: createdAt }],
    answered: [],
    ...over,
  };
}

const rowOf = (h: Handle): TaskRow => ({ stem: h.taskId, summary: summarize(h.taskId, h, 0), connection: "following" });
const listRow = (h: Handle, asking = false): ListRow => ({
  stem: h.taskId,
  summary: summarize(h.taskId, h, 0),
  connection: "following",
  asking,
});

it("shows each task's status with a symbol that reads without colour, tool, server, ages and message", () => {
  const done = handle(1, {
    outcome: { taskId: "x", status: "completed" },
    last: { taskId: "x", status: "completed", inputRequests: [] },
  });
  const failed = handle(2, {
    outcome: { taskId: "y", status: "failed" },
    last: { taskId: "y", status: "failed", inputRequests: [] },
  });
  const { lastFrame } = render(
    <TaskList
      rows={[listRow(handle(0), true), listRow(done), listRow(failed)]}
      selected={0}
      width={100}
      height={10}
      now={NOW}
    />,
  );
  const frame = lastFrame()!;
  // A task waiting for the user's answer is marked "!".
  expect(frame).toMatch(/! working\s+approve_invoice\s+task-000…\s+v2\s+1m\s+1m\s+59m\s+step 0/);
  expect(frame).toMatch(/✓ completed\s+export\s+task-000…\s+everything/);
  expect(frame).toMatch(/✗ failed/);
});

it("at 80 columns every column stays, the message shortened first; the task's id in its short form", () => {
  const long = handle(0, {
    taskId: "0b5e6f1c-9d2a-4c1e-8f3b-2a7d9e4c6b10",
    tool: "reconcile_quarterly_ledger",
    server: { name: "accounting-production", descriptor: { transport: "http", url: "http://127.0.0.1:1/mcp" } },
    last: { taskId: "t", status: "working", statusMessage: "matching 1,204 of 9,000 lines", inputRequests: [] },
  });
  const at = (width: number) => {
    const { lastFrame } = render(<TaskList rows={[listRow(long)]} selected={0} width={width} height={5} now={NOW} />);
    return lastFrame()!.split("\n");
  };
  const [header80, row80] = at(80);
  expect(header80).toMatch(/^ {3}STATUS +TOOL +ID +SERVER +AGE +TTL +MESSAGE *$/);
  expect(row80).toMatch(/^›◐ working +reconcile_… 0b5e6f1c… account… 1m +59m +matching 1,204 of… *$/);
  for (const line of at(80)) expect(line.length).toBeLessThan(80);
  // Wider: the time in the status comes back, tool and server longer, the message longer.
  const [header100, row100] = at(100); // ink-testing-library's terminal: 100 columns
  expect(header100).toMatch(/^ {3}STATUS +TOOL +ID +SERVER +AGE +SINCE +TTL +MESSAGE *$/);
  expect(row100).toMatch(/working +reconcile_\S+… +0b5e6f1c… +accounting-\S*… +1m +1m +59m +matching 1,204 of 9,/);
  // The message gives way first: from 130 columns down to 110 only it shrinks; then tool and server; then the rest.
  expect(columnsFor(130)).toEqual({ status: 15, tool: 22, id: 10, server: 18, age: 6, since: 6, ttl: 6, message: 43 });
  expect(columnsFor(110)).toEqual({ status: 15, tool: 22, id: 10, server: 18, age: 6, since: 6, ttl: 6, message: 23 });
  expect(columnsFor(100)).toEqual({ status: 15, tool: 17, id: 10, server: 13, age: 6, since: 6, ttl: 6, message: 23 });
  expect(columnsFor(80)).toEqual({ status: 15, tool: 12, id: 10, server: 9, age: 6, since: 0, ttl: 6, message: 18 });
  expect(columnsFor(60).server).toBeGreaterThan(0);
  for (let width = 40; width <= 200; width++) {
    const c = columnsFor(width);
    expect(3 + Object.values(c).reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(Math.max(width - 1, 44));
  }
  // The short id: the first 8 characters, a prefix `watch` and `get` take; an id of 9 or fewer shown whole.
  expect(shortId("0b5e6f1c-9d2a")).toBe("0b5e6f1c…");
  expect(shortId("t-1777")).toBe("t-1777");
  expect(shortId("abc\u001b[2Jdef-long")).not.toContain("\u001b");
});

it("renders only the rows that fit, keeping the selection in view (1,000 handles)", () => {
  const rows = Array.from({ length: 1000 }, (_, i) => listRow(handle(i)));
  const { lastFrame } = render(<TaskList rows={rows} selected={500} width={100} height={10} now={NOW} />);
  const lines = lastFrame()!.split("\n");
  expect(lines).toHaveLength(11); // header + 10 rows
  expect(lastFrame()).toContain("step 500");
  expect(windowStart(1000, 999, 10)).toBe(990);
  expect(windowStart(5, 3, 10)).toBe(0);
});

it("filters by text and status and sorts, as a pure function", () => {
  const rows = [
    handle(0),
    handle(1, { gone: { at: "", reason: "lost" } }),
    handle(2, { outcome: { taskId: "z", status: "completed" } }),
  ].map(rowOf);
  const ids = (opts: Parameters<typeof visibleRows>[2]) =>
    visibleRows(rows, [], opts).map((r) => r.summary.taskId.slice(0, 9));
  expect(ids({ text: "", status: "all", sort: "newest", now: NOW })).toEqual(["task-0000", "task-0001", "task-0002"]);
  expect(ids({ text: "", status: "all", sort: "oldest", now: NOW })).toEqual(["task-0002", "task-0001", "task-0000"]);
  expect(ids({ text: "everything", status: "all", sort: "newest", now: NOW })).toEqual(["task-0001"]);
  expect(ids({ text: "", status: "finished", sort: "newest", now: NOW })).toEqual(["task-0002"]);
  expect(ids({ text: "", status: "expired", sort: "newest", now: NOW })).toEqual(["task-0001"]);
  expect(ids({ text: "", status: "live", sort: "newest", now: NOW })).toEqual(["task-0000"]);
  const question = {
    id: 1,
    taskId: rows[2].summary.taskId,
    request: { key: "k", method: "elicitation/create", params: {} },
  };
  expect(visibleRows(rows, [question], { text: "", status: "all", sort: "status", now: NOW })[0].summary.taskId).toBe(
    rows[2].summary.taskId,
  );
});

it("details a task: timeline, arguments, the result and an outputSchema breach, scrollable", () => {
  const h = handle(3, {
    history: [
      { status: "working", at: "2026-11-29T11:56:00.000Z", statusMessage: "validating" },
      { status: "input_required", at: "2026-11-29T11:57:00.000Z", statusMessage: "approve?" },
      { status: "completed", at: "2026-11-29T11:58:00.000Z" },
    ],
    last: { taskId: "t", status: "completed", inputRequests: [] },
    outcome: {
      taskId: "t",
      status: "completed",
      result: { content: [{ type: "text", text: "line 1\nline 2\u001b[31m" }], structuredContent: { total: 5 } },
      outputProblem: "data/total must be string",
    },
  });
  const lines = detailLines(h, NOW).map((l) => l.text);
  expect(lines).toContain("  2026-11-29 11:57:00.000  ? input_required  approve?");
  expect(lines.join("\n")).toContain('"n": 3');
  expect(lines).toContain("  ✗ breaks the tool's outputSchema: data/total must be string");
  expect(lines).toContain("  line 2");
  expect(lines.join("\n")).toContain('"total": 5');
  const { lastFrame } = render(<Detail lines={detailLines(h, NOW)} scroll={5} height={4} width={100} />);
  expect(lastFrame()!.split("\n")).toHaveLength(5);
  expect(lastFrame()).toMatch(/lines 6-9 of \d+/);
});

it("a task whose question another process holds: its row says where, its detail what to do here", () => {
  const h = handle(0);
  const held = { pid: 1234, command: "mcp-task watch task-0000-aaaa" };
  const [listed] = visibleRows([{ ...rowOf(h), held }], [], { text: "", status: "all", sort: "newest", now: NOW });
  expect(listed.held).toEqual(held);
  expect(messageCell(listed, "working", 40).trimEnd()).toBe("(answered in pid 1234) step 0");
  const { lastFrame } = render(<TaskList rows={[listed]} selected={0} width={100} height={5} now={NOW} />);
  expect(lastFrame()).toMatch(/59m\s+\(answered in/);
  // One that did not say its pid (an older build) is "another process".
  expect(messageCell({ ...listed, held: {} }, "working", 40).trimEnd()).toBe("(answered in another process) step 0");
  // The detail: the line `watch` says, its command line made safe.
  expect(heldLines(h.taskId, { pid: 1234, command: "mcp-task watch\u001b[2J x" }).map((line) => line.text)).toEqual([
    "",
    `the question is being answered in another process (pid 1234: mcp-task watch x); answer it there, or stop that one and run: mcp-task watch ${h.taskId}`,
  ]);
  expect(heldLines(h.taskId, undefined)).toEqual([]);
});
