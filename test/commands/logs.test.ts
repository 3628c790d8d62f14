// Logging notifications (`notifications/message`) from real servers: server-everything's simulated logging (its
// toggle sends one message at once, of a random level) and the SDK v1 test server's `progress` tool, which logs
// each step of its task (info, and warning on the last). NDJSON `log` events, a line on stderr from --log-level
// up (warning by default), `logging/setLevel` sent when the flag is given, and the messages in the trace.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { ROOT, everythingStdio } from "../helpers/servers.js";

const sdkV1Stdio = `node ${join(ROOT, "dist/test-servers/sdk-v1-server.js")} --stdio`;
const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

describe("log messages", { timeout: 60_000 }, () => {
  it("server-everything's log message: a log event, through the broker and directly; a line on stderr in text", async () => {
    const home = tempHome();
    for (const round of ["broker", "direct"]) {
      const run = await runInProcess(
        ["call", "toggle-simulated-logging", "--stdio", everythingStdio, "--log-level", "debug", "--json"],
        { home },
      );
      expect(run.code, `${round}: ${run.stderr}`).toBe(0);
      const logs = events(run.stdout).filter((e) => e.type === "log");
      expect(logs, round).toHaveLength(1);
      expect(logs[0]).toMatchObject({ taskId: null, logger: null, data: expect.stringMatching(/level.message/) });
      expect(LEVELS).toContain(logs[0].level);
      expect(events(run.stdout).at(-1)).toMatchObject({ type: "result", status: "completed" });
    }
    const text = await runInProcess(
      ["call", "toggle-simulated-logging", "--stdio", everythingStdio, "--log-level", "debug"],
      {
        home,
      },
    );
    expect(text.stderr).toMatch(
      /^mcp-task: log (debug|info|notice|warning|error|critical|alert|emergency) \S+ ?level.message/m,
    );
  });

  it("--log-level sends logging/setLevel (seen in the trace) and the messages are in the trace", async () => {
    const home = tempHome();
    const trace = join(home, "wire.ndjson");
    const run = await runInProcess(
      [
        "call",
        "toggle-simulated-logging",
        "--stdio",
        everythingStdio,
        "--no-task",
        "--log-level",
        "debug",
        `--trace=${trace}`,
      ],
      { home },
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, any>);
    const setLevel = lines.findIndex((e) => e.dir === "out" && e.message.method === "logging/setLevel");
    expect(setLevel).toBeGreaterThan(-1);
    expect(lines[setLevel].message.params).toEqual({ level: "debug" });
    const call = lines.findIndex((e) => e.dir === "out" && e.message.method === "tools/call");
    expect(setLevel).toBeLessThan(call); // asked before the call
    expect(lines.some((e) => e.dir === "in" && e.message.method === "notifications/message")).toBe(true);
    // Without the flag, nothing is asked of the server.
    const trace2 = join(home, "wire2.ndjson");
    await runInProcess(
      ["call", "toggle-simulated-logging", "--stdio", everythingStdio, "--no-task", `--trace=${trace2}`],
      {
        home,
      },
    );
    expect(readFileSync(trace2, "utf8")).not.toContain("logging/setLevel");
  });

  it("a task's log messages: text shows warning and up by default, --log-level info all; --json every one", async () => {
    const home = tempHome();
    const args = ["call", "progress", "steps=3", "stepMs=200", "--stdio", sdkV1Stdio];
    const plain = await runInProcess(args, { home });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr.match(/^mcp-task: log .*$/gm)).toEqual([
      'mcp-task: log warning [progress-tool] {"step":3,"of":3}',
    ]);
    const info = await runInProcess([...args, "--log-level", "info"], { home });
    expect(info.stderr.match(/^mcp-task: log .*$/gm)).toEqual([
      'mcp-task: log info [progress-tool] {"step":1,"of":3}',
      'mcp-task: log info [progress-tool] {"step":2,"of":3}',
      'mcp-task: log warning [progress-tool] {"step":3,"of":3}',
    ]);
    const json = await runInProcess([...args, "--json"], { home });
    const all = events(json.stdout);
    const taskId = all.find((e) => e.type === "task")!.taskId;
    expect(all.filter((e) => e.type === "log")).toEqual(
      [1, 2, 3].map((step) => ({
        type: "log",
        taskId,
        level: step === 3 ? "warning" : "info",
        logger: "progress-tool",
        data: { step, of: 3 },
        at: expect.any(String),
      })),
    );
    // Asked for warning and up, the server sends only those (and only those are shown).
    const warning = await runInProcess([...args, "--json", "--log-level", "warning"], { home });
    expect(
      events(warning.stdout)
        .filter((e) => e.type === "log")
        .map((e) => e.level),
    ).toEqual(["warning"]);
  });
});
