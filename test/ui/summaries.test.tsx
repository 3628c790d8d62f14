// The dashboard starts from the store's summary index, not from one read per handle file: with every handle file
// but one made unreadable after the index was written, all rows still show (from their summaries), and only the
// task opened in the detail view has its file read (which then says it cannot be read).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { act } from "react";
import { expect, it } from "vitest";
import { fileStem } from "../../src/store/handle-file.js";
import type { Handle } from "../../src/model.js";
import { detailLines, unreadableLines } from "../../src/ui/Detail.js";
import { DashboardModel } from "../../src/ui/model.js";
import { testContext } from "../helpers/context.js";
import { renderDashboard } from "../helpers/dashboard.js";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function finished(i: number): Handle {
  const at = new Date(Date.now() - (i + 1) * 60_000).toISOString();
  const taskId = `done-${i}-aaaa`;
  return {
    version: 1,
    taskId,
    server: { name: "srv", descriptor: { transport: "http", url: "http://127.0.0.1:1/mcp" } },
    resume: { generation: "v2", protocolVersion: "2026-07-28", serverName: "srv" },
    tool: `tool_${i}`,
    arguments: { n: i },
    createdAt: at,
    updatedAt: at,
    ttlMs: 3_600_000,
    pollIntervalMs: 1000,
    last: { taskId, status: "completed", statusMessage: `message ${i}`, inputRequests: [] },
    history: [
      { status: "working", at },
      { status: "completed", at },
    ],
    answered: [],
    outcome: { taskId, status: "completed", result: { content: [{ type: "text", text: `result ${i}` }] } },
  };
}

async function storeWithBrokenFiles() {
  const ctx = await testContext();
  const store = ctx.tracker.store;
  const stems: string[] = [];
  for (let i = 0; i < 5; i++) {
    const stem = fileStem(finished(i).taskId, "0000000000");
    await store.create(stem, finished(i));
    stems.push(stem);
  }
  // After the index has their summaries, every file but the first stops being a handle.
  for (const stem of stems.slice(1)) writeFileSync(join(store.dir, `${stem}.json`), "{ not a handle", { mode: 0o600 });
  return { ctx, stems };
}

it("starts from the summaries: rows of unreadable files show; the detail reads the one file opened", async () => {
  const { ctx, stems } = await storeWithBrokenFiles();
  const model = new DashboardModel(ctx);
  await model.start();
  try {
    const rows = model.getState().rows;
    // Reading every file would have found one handle; the index has all five.
    expect(rows.map((r) => r.summary.taskId).sort()).toEqual([
      "done-0-aaaa",
      "done-1-aaaa",
      "done-2-aaaa",
      "done-3-aaaa",
      "done-4-aaaa",
    ]);
    expect(rows.find((r) => r.stem === stems[3])!.summary).toMatchObject({
      status: "completed",
      statusMessage: "message 3",
      tool: "tool_3",
      outcome: true,
    });
    // No full handle is held: nothing is followed and nothing is open.
    expect(rows.filter((r) => r.handle || r.unreadable)).toEqual([]);

    model.open(stems[3]);
    const broken = model.getState().rows.find((r) => r.stem === stems[3])!;
    expect(broken.handle).toBeUndefined();
    expect(broken.unreadable).toMatch(/JSON/);
    expect(unreadableLines(broken.summary, broken.unreadable!, Date.now()).map((l) => l.text)).toContain(
      `cannot read its saved handle: ${broken.unreadable}`,
    );

    model.open(stems[0]);
    const intact = model.getState().rows.find((r) => r.stem === stems[0])!;
    expect(
      detailLines(intact.handle!, Date.now())
        .map((l) => l.text)
        .join("\n"),
    ).toMatch(/"n": 0[\s\S]*result 0/);
    // The task opened before lets go of what was read for it.
    expect(
      model
        .getState()
        .rows.filter((r) => r.handle || r.unreadable)
        .map((r) => r.stem),
    ).toEqual([stems[0]]);
    model.open(undefined);
    expect(model.getState().rows.filter((r) => r.handle || r.unreadable)).toEqual([]);
    expect(model.handleOf(stems[2])).toBeUndefined();
    expect(model.handleOf(stems[0])?.taskId).toBe("done-0-aaaa");
  } finally {
    await model.close();
  }
});

it("in the dashboard, the list shows every row and the detail of an unreadable task says so", async () => {
  const { ctx } = await storeWithBrokenFiles();
  const model = new DashboardModel(ctx);
  await model.start();
  const app = renderDashboard(model, ctx.clock);
  const eventually = async (pattern: RegExp) => {
    const until = Date.now() + 10_000;
    while (!pattern.test(app.lastFrame() ?? "")) {
      if (Date.now() > until) throw new Error(`never showed ${pattern}:\n${app.lastFrame()}`);
      await act(() => sleep(50));
    }
    return app.lastFrame()!;
  };
  const press = async (key: string) => {
    await act(async () => {
      app.stdin.write(key);
    });
    await act(() => sleep(30));
  };
  try {
    const list = await eventually(/5 tasks/);
    expect(list).toMatch(/✓ completed\s+tool_0\s+done-0-a…\s+srv\s+1m\s+1m\s+-\s+message 0[\s\S]*tool_4/);
    await press("\r"); // the newest (done-0): intact
    await eventually(/Timeline[\s\S]*"n": 0/);
    await press("\u001b");
    await eventually(/STATUS\s+TOOL/);
    await press("j");
    await press("\r"); // done-1: its file is no handle any more
    const detail = await eventually(/cannot read its saved handle/);
    expect(detail).toMatch(/✓ completed\s+message 1/);
    expect(detail).toMatch(/task\s+done-1-aaaa/);
  } finally {
    app.unmount();
    await model.close();
  }
});
