// The progress line (src/output/progress-bar.ts) and where it is drawn: the live view and the dashboard's row, as
// pure functions of their props. At 80 columns the percentage is never cut: the bar shrinks, the figures after the
// percentage go, and server text comes last.
import { render } from "ink-testing-library";
import { expect, it } from "vitest";
import { bar, percentOf, progressLine, ProgressPace, rateOf } from "../../src/output/progress-bar.js";
import { parseHandle, summarize } from "../../src/store/handle-file.js";
import type { Handle } from "../../src/model.js";
import { LiveView } from "../../src/ui/LiveView.js";
import { TaskList, type ListRow } from "../../src/ui/TaskList.js";

const NOW = Date.parse("2026-11-29T12:00:00Z");

it("a bar fills in eighths of a cell between thin brackets", () => {
  expect(bar(0, 4)).toBe("▕    ▏");
  expect(bar(1, 4)).toBe("▕████▏");
  expect(bar(0.45, 10)).toBe("▕████▌     ▏");
  expect(bar(2, 3)).toBe("▕███▏"); // clamped
  expect(percentOf({ progress: 3, total: 0 })).toBeUndefined();
  expect(percentOf({ progress: 7, total: 5 })).toBe(100);
});

it("the rate comes from the first report and the last; none from reports too close together or going nowhere", () => {
  expect(rateOf({ progress: 10, at: 0 }, { progress: 42, at: 10_000 })).toBeCloseTo(3.2);
  expect(rateOf({ progress: 10, at: 0 }, { progress: 42, at: 100 })).toBeUndefined();
  expect(rateOf({ progress: 10, at: 0 }, { progress: 10, at: 5000 })).toBeUndefined();
  expect(rateOf(undefined, { progress: 10, at: 0 })).toBeUndefined();
  const pace = new ProgressPace();
  expect(pace.see("t", { progress: 1 }, 0)).toBeUndefined();
  expect(pace.see("t", { progress: 3 }, 1000)).toBe(2);
  expect(pace.see("t", { progress: 0 }, 2000)).toBeUndefined(); // went backwards: a new run
});

it("a line with the bar, percentage, rate and time left; without a total, the count and rate", () => {
  expect(progressLine({ progress: 45, total: 100 }, { width: 60, rate: 3.2 })).toBe(
    `${bar(0.45, 20)} 45 % · 3.2/s · ~17s left`,
  );
  expect(progressLine({ progress: 7 }, { width: 60, rate: 12.4 })).toBe("7 · 12/s");
  expect(progressLine({ progress: 1, total: 4, message: "copying\x1b[31m" }, { width: 60 })).toBe(
    `${bar(0.25, 20)} 25 % - copying`,
  );
});

it("narrow: the bar shrinks first, then time left and rate go; the percentage stays; server text is cut last", () => {
  const p = { progress: 45, total: 100, message: "a long server message that will not fit in the room left" };
  for (let width = 4; width <= 80; width++) {
    const line = progressLine(p, { width, rate: 3.2 });
    expect(line.length, `width ${width}`).toBeLessThanOrEqual(Math.max(width, 4));
    expect(line, `width ${width}`).toContain("45 %");
  }
  expect(progressLine(p, { width: 30, rate: 3.2 })).toBe(`${bar(0.45, 3)} 45 % · 3.2/s · ~17s left`);
  expect(progressLine(p, { width: 20, rate: 3.2 })).toBe(`${bar(0.45, 3)} 45 % · 3.2/s`);
  expect(progressLine(p, { width: 10, rate: 3.2 })).toBe(`${bar(0.45, 3)} 45 %`);
  expect(progressLine(p, { width: 9, rate: 3.2 })).toBe("45 % - a…");
  expect(progressLine(p, { width: 8, rate: 3.2 })).toBe("45 %");
  expect(progressLine(p, { width: 50, rate: 3.2 })).toBe(
    `${bar(0.45, 3)} 45 % · 3.2/s · ~17s left - a long server me…`,
  );
  expect(progressLine(p, { width: 80, rate: 3.2 })).toBe(
    `${bar(0.45, 20)} 45 % · 3.2/s · ~17s left - a long server message that wi…`,
  );
});

it("the live view shows the bar under the status at 80 columns, the percentage whole", () => {
  const { lastFrame } = render(
    <LiveView
      state={{
        version: 1,
        questions: [],
        info: { taskId: "t-1", server: "s", tool: "export", generation: "v1", status: "working" },
        snapshot: { taskId: "t-1", status: "working", statusMessage: "exporting", inputRequests: [] },
        progress: { progress: 3, total: 8, message: "x".repeat(200), rate: 1.5 },
      }}
      elapsedMs={2000}
      width={80}
      onRespond={() => {}}
      onClose={() => {}}
    />,
  );
  const line = lastFrame()!
    .split("\n")
    .find((l) => l.includes("▕"))!;
  expect(line).toContain(`${bar(0.37, 20)} 37 % · 1.5/s · ~3s left - xxx`);
  expect(line.trimEnd().length).toBeLessThanOrEqual(80);
});

function handle(over: Partial<Handle> = {}): Handle {
  const createdAt = new Date(NOW - 60_000).toISOString();
  return {
    version: 1,
    taskId: "task-0001-aaaa",
    server: { name: "v2", descriptor: { transport: "http", url: "http://127.0.0.1:1/mcp" } },
    resume: { generation: "v2", protocolVersion: "2026-07-28", serverName: "s" },
    tool: "export",
    arguments: {},
    createdAt,
    updatedAt: createdAt,
    ttlMs: 3_600_000,
    last: { taskId: "task-0001-aaaa", status: "working", statusMessage: "rows", inputRequests: [] },
    history: [{ status: "working", at: createdAt }],
    answered: [],
    ...over,
  };
}

it("the dashboard row shows the bar in its message column at 80 columns, with the rate from its first report", () => {
  const h = handle();
  const progress = {
    progress: 60,
    total: 80,
    at: new Date(NOW - 1000).toISOString(),
    first: { progress: 20, at: new Date(NOW - 21_000).toISOString() },
  };
  const row: ListRow = { stem: h.taskId, summary: summarize(h.taskId, h, 0), connection: "following", asking: false };
  const frame = (r: ListRow, width: number) =>
    render(<TaskList rows={[r]} selected={0} width={width} height={5} now={NOW} />).lastFrame()!;
  const narrow = frame({ ...row, progress }, 80).split("\n")[1];
  expect(narrow).toContain("75 %");
  expect(narrow).toMatch(/▕.{3,}▏ 75 % · 2\/s/);
  expect(frame({ ...row, progress }, 100)).toMatch(/▕.{3,}▏ 75 % · 2\/s - rows/);
  // Without progress, or once finished, the status message as before.
  expect(frame(row, 80).split("\n")[1]).toMatch(/rows\s*$/);
  const done = handle({ last: { taskId: "x", status: "completed", inputRequests: [] } });
  const finished = { ...row, summary: summarize(done.taskId, done, 0), progress };
  expect(frame(finished, 80)).not.toContain("%");
});

it("a saved handle's progress: a malformed first report is dropped, the last kept; a malformed last drops both", () => {
  const at = new Date(NOW).toISOString();
  const read = (progress: unknown) => parseHandle(JSON.stringify({ ...handle(), progress })).progress;
  expect(read({ progress: 3, total: 4, at, first: { progress: 1, at } })).toEqual({
    progress: 3,
    total: 4,
    at,
    first: { progress: 1, at },
  });
  expect(read({ progress: 3, total: 4, at, first: { progress: "1", at } })).toEqual({ progress: 3, total: 4, at });
  expect(read({ progress: 3, at, first: "x" })).toEqual({ progress: 3, at });
  expect(read({ progress: null, first: { progress: 1, at } })).toBeUndefined();
});
