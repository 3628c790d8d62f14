// A real terminal under tmux at 80 columns: `call`'s live view shows the task's progress as a bar with the
// percentage and the rate (the SDK v1 test server's `progress` tool reports it during its task), the line within
// the 80 columns and the percentage whole.
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { tempHome } from "../helpers/cli.js";
import { ROOT } from "../helpers/servers.js";
import { bin, tmuxTerminal } from "../helpers/tmux.js";

const { waitFor, terminal, close } = tmuxTerminal("mcp-task-tty-progress");
afterEach(() => close());

it("the live view draws the progress bar with percentage and rate at 80 columns", { timeout: 60_000 }, async () => {
  const server = `node ${join(ROOT, "dist/test-servers/sdk-v1-server.js")} --stdio`;
  terminal(tempHome(), `${bin} call progress steps=8 stepMs=700 --stdio '${server}'`, ["-x", "80", "-y", "24"]);
  // From the third report on there is a rate (two reports at least 500 ms apart) and a time left.
  const seen = await waitFor(/▕[█▏▎▍▌▋▊▉ ]+▏ \d+ % · [\d.]+\/s · ~\d+s left - step \d of 8/);
  const line = seen.split("\n").find((l) => l.includes("▕"))!;
  expect(line.trimEnd().length).toBeLessThanOrEqual(80);
  expect(line).toMatch(/^ {2}▕/); // under the status line, indented like the status message
  const done = await waitFor(/EXIT=\d+/);
  expect(done).toMatch(/EXIT=0/);
  expect(done).toContain('"action":"done"');
});
