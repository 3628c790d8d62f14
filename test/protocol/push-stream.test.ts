// The listen stream read without the SDK (src/protocol/push-stream.ts) and the V2 task parse without zod
// (src/protocol/parse.ts): what the SDK would have made of the same bytes and values, unit by unit. The whole path
// against a real server (pushes relaxing the polls, a dashboard following its tasks) is in interop/v2-server.test.ts and
// the dashboard tests; these cover what a server nobody here wrote may send that ours does not: chunks cut anywhere,
// CRLF, event ids, comments, other messages on the stream, values the schema refuses.
import { describe, expect, it } from "vitest";
import { TaskV2Schema } from "@modelcontextprotocol/ext-tasks/core/v2";
import { ProtocolViolation } from "../../src/errors.js";
import { isListenRequest, tapTaskEvents } from "../../src/protocol/push-stream.js";
import { snapshotFromV2 } from "../../src/protocol/parse.js";

const task = (n: number) => ({
  taskId: "t1",
  status: "working",
  statusMessage: `${n} of 3`,
  createdAt: "2026-12-02T00:00:00Z",
  lastUpdatedAt: "2026-12-02T00:00:01Z",
  ttlMs: 60_000,
});
const push = (n: number) => JSON.stringify({ jsonrpc: "2.0", method: "notifications/tasks", params: task(n) });

/** The stream `text` makes, cut into chunks of `size` bytes, read through the tap: what it delivered and passed on. */
async function through(text: string, size: number) {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += size) controller.enqueue(bytes.subarray(at, at + size));
      controller.close();
    },
  });
  const delivered: unknown[] = [];
  const out = tapTaskEvents(
    body,
    () => undefined,
    (message) => delivered.push(message),
  );
  return { delivered, passed: await new Response(out).text() };
}

describe("the listen stream read without the SDK", () => {
  const stream =
    ": keep-alive\r\n\r\n" +
    `id: 1\r\ndata: ${push(1)}\r\n\r\n` +
    `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\n\n` +
    `retry: 2000\nid: 2\ndata: ${push(2)}\n\n` +
    `event: other\ndata: ${push(3)}\n\n` +
    `data: {"jsonrpc":"2.0","id":"mt-1",\ndata: "result":{}}\n\n` +
    // Lines ended by a CR alone (the format allows it): cut between chunks, it must not wait for an LF.
    `id: 3\rdata: ${push(4)}\r\r`;

  for (const size of [1, 7, 64, 100_000]) {
    it(`delivers task notifications and passes the rest on, in chunks of ${size} bytes`, async () => {
      const { delivered, passed } = await through(stream, size);
      // Only a task notification of the default event type is taken; the log message, the other event type and the
      // reply (two data lines) go to the SDK as they came; the retry with the event it came in; each id taken is
      // passed on (an event with empty data), so that the SDK resumes from the right place.
      expect(delivered).toEqual([JSON.parse(push(1)), JSON.parse(push(2)), JSON.parse(push(4))]);
      const events = passed.split("\n\n").filter(Boolean);
      expect(events.filter((event) => event.startsWith("id: ")).at(-1)).toBe("id: 3\ndata:");
      expect(events).toContain(
        `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`,
      );
      expect(events).toContain("retry: 2000");
      expect(events).toContain(`event: other\ndata: ${push(3)}`);
      expect(events).toContain(`data: {"jsonrpc":"2.0","id":"mt-1",\ndata: "result":{}}`);
      expect(passed).not.toContain("keep-alive");
    });
  }

  it("reads a flowing stream in batches, every push delivered in order, and a queued backlog at once", async () => {
    // A source like fetch's body over a socket: what came since the last read is one chunk. Pushes every 2 ms for
    // 600 ms, then a backlog of 500 queued chunks (a slow consumer's), then a lone push after a quiet spell.
    const encoder = new TextEncoder();
    let buffered = "";
    let wake: (() => void) | undefined;
    const queued: string[] = [];
    let reads = 0;
    let ended = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        while (!buffered && !queued.length && !ended) await new Promise<void>((resolve) => (wake = resolve));
        reads++;
        if (buffered) {
          controller.enqueue(encoder.encode(buffered));
          buffered = "";
        } else if (queued.length) controller.enqueue(encoder.encode(queued.shift()));
        else controller.close();
      },
    });
    const delivered: number[] = [];
    const out = new Response(
      tapTaskEvents(
        body,
        () => undefined,
        (message) => delivered.push(Number((message as { params: { statusMessage: string } }).params.statusMessage)),
      ),
    ).text();
    const event = (i: number) =>
      `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tasks", params: { ...task(0), statusMessage: String(i) } })}\n\n`;
    let n = 0;
    // A push every 2 ms (timers: later on a loaded machine, the count the same).
    for (let i = 0; i < 300; i++) {
      buffered += event(n++);
      wake?.();
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const flowed = n;
    const flowReads = reads;
    for (let i = 0; i < 500; i++) queued.push(event(n++));
    wake?.();
    // The quiet spell: the backlog read and delivered, the reader waiting again (a hang-only bound).
    for (let waited = 0; delivered.length < n && waited < 30_000; waited += 5)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(delivered).toHaveLength(n);
    buffered += event(n++);
    ended = true;
    wake?.();
    await out;
    expect(delivered).toEqual(Array.from({ length: n }, (_, i) => i));
    // Read about twice per pause while pushes flowed, not once per push (however late a loaded machine's timers make
    // them: each came on a timer of its own); the backlog all read.
    expect(flowReads).toBeLessThan(flowed / 2);
  });

  it("ends the stream with the guard's error", async () => {
    const body = new Response(`data: ${push(1)}\n\n`).body!;
    const error = new ProtocolViolation("too big");
    const out = tapTaskEvents(
      body,
      () => error,
      () => {},
    );
    await expect(new Response(out).text()).rejects.toBe(error);
  });

  it("knows a listen request by its method, not its text", () => {
    expect(isListenRequest(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "subscriptions/listen" }))).toBe(true);
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "subscriptions/listen" } };
    expect(isListenRequest(JSON.stringify(call))).toBe(false);
    expect(isListenRequest(undefined)).toBe(false);
  });
});

describe("a V2 task parsed without zod", () => {
  const good = { ...task(1), pollIntervalMs: 500, extra: { nested: true } };
  const values: unknown[] = [
    good,
    { ...good, ttlMs: null },
    { ...good, statusMessage: undefined },
    { ...good, ttlMs: undefined },
    { ...good, ttlMs: 1.5 },
    { ...good, ttlMs: 2 ** 60 },
    { ...good, pollIntervalMs: "500" },
    { ...good, status: "running" },
    { ...good, statusMessage: 3 },
    { ...good, lastUpdatedAt: undefined },
    { ...good, createdAt: 0 },
    { ...good, taskId: 7 },
    [good],
    null,
    "task",
  ];
  for (const [i, value] of values.entries()) {
    it(`accepts what the schema accepts, and reads the same fields (value ${i})`, () => {
      const parsed = TaskV2Schema.safeParse(value);
      if (!parsed.success) return expect(() => snapshotFromV2(value)).toThrow(ProtocolViolation);
      const snapshot = snapshotFromV2(value);
      expect(snapshot.taskId).toBe(parsed.data.taskId);
      expect(snapshot.status).toBe(parsed.data.status);
      expect(snapshot.statusMessage).toBe(parsed.data.statusMessage);
    });
  }
});
