// An in-process Context for tests: a real store in a temporary home, the real clock and real connections, and
// IO captured in strings.
import { PassThrough } from "node:stream";
import { systemClock, type Context } from "../../src/context.js";
import { InterruptedError } from "../../src/errors.js";
import { connect } from "../../src/protocol/connect.js";
import { HandleStore } from "../../src/store/handles.js";
import { Settings } from "../../src/store/settings.js";
import { Tracker } from "../../src/tasks/tracker.js";
import { join } from "node:path";
import { tempHome } from "./cli.js";
import { ROOT } from "./servers.js";

export async function testContext(home = tempHome()): Promise<Context & { out: { stdout: string; stderr: string } }> {
  const out = { stdout: "", stderr: "" };
  const settings = await Settings.open(home);
  const interrupt = new AbortController();
  return {
    out,
    io: {
      stdout: { write: (s: string) => (out.stdout += s) },
      stderr: { write: (s: string) => (out.stderr += s) },
      stdin: new PassThrough(),
      stdinIsTTY: false,
      stdoutIsTTY: false,
      stderrIsTTY: false,
      color: false,
      interactive: false,
    },
    clock: systemClock,
    env: {},
    settings,
    loadSettings: async () => settings,
    home,
    tracker: new Tracker(new HandleStore(home), systemClock),
    interrupt: interrupt.signal,
    interruptNow: () => interrupt.abort(new InterruptedError("interrupted")),
    self: [process.execPath, join(ROOT, "bin/mcp-task.js")],
    connect: (descriptor, name, how) => connect(descriptor, { env: {}, name, resume: how?.resume }),
  };
}
