// Mounting the dashboard on the terminal: the alternate screen, the pager and the clipboard live here, at the
// edge, so the components stay free of side effects.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Box, render, useStdout } from "ink";
import type { Context, Terminal } from "../context.js";
import { applyColour } from "./colour.js";
import { Dashboard } from "./Dashboard.js";
import { useTerminalSize } from "./hooks.js";
import { DashboardModel } from "./model.js";
import { WireLog } from "./wire-log.js";
import type { ServerChoice } from "./NewCall.js";
import { useEffect, useRef } from "react";

const ENTER_ALT_SCREEN = "\u001b[?1049h\u001b[H";
const LEAVE_ALT_SCREEN = "\u001b[?1049l";
/** Erases the whole screen and puts the cursor at its top. */
const CLEAR_SCREEN = "\u001b[2J\u001b[H";

/** `goodbye`: the line said on leaving, where running tasks do not simply go on (the demo's, whose server stops). */
export async function runDashboard(ctx: Context, terminal: Terminal, goodbye?: string): Promise<number> {
  applyColour(ctx.io);
  // Hears the dashboard's own connections (opened from now on) for the detail view's wire view and server logs.
  const wire = new WireLog();
  ctx.wireTap = wire;
  const servers: ServerChoice[] = Object.entries((await ctx.loadSettings()).servers()).map(([name, descriptor]) => ({
    name,
    descriptor,
  }));
  const model = new DashboardModel(ctx);
  // A large store's newest page (as many rows as the terminal has), the rest read after the first frame: nothing
  // awaited between this and render below, which draws it.
  await model.start(terminal.stdout.rows || 50);
  terminal.stdout.write(ENTER_ALT_SCREEN);
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));

  // A resize leaves nothing of the frame before it. Ink erases the lines of its last frame counted up from the
  // cursor, which a terminal that cut or moved them on resizing no longer has there, and first draws the tree of the
  // old size at the new width, whose lines wider than the terminal wrap into rows it does not count: fragments of
  // the old frame stayed. So the tree is clipped to the terminal's width (every frame fits it), and once the frame
  // of the new size is made, the screen is erased through Ink, which then draws its last frame again from the top.
  function Root() {
    const { write } = useStdout();
    const { width, height } = useTerminalSize(terminal.stdout);
    const drawn = useRef(`${width}x${height}`);
    useEffect(() => {
      if (drawn.current === `${width}x${height}`) return;
      drawn.current = `${width}x${height}`;
      write(CLEAR_SCREEN);
    }, [width, height, write]);
    return (
      <Box width="100%" overflow="hidden">
        <Dashboard
          model={model}
          clock={ctx.clock}
          servers={servers}
          width={width}
          height={height}
          onExit={finish}
          wire={wire}
          onCopy={(text) => {
            // OSC 52: the terminal (and tmux with set-clipboard) puts the text on the clipboard.
            terminal.stdout.write(`\u001b]52;c;${Buffer.from(text).toString("base64")}\u0007`);
            model.notify(`copied ${text}`);
          }}
          onPager={(text) => {
            const dir = mkdtempSync(join(tmpdir(), "mcp-task-"));
            const file = join(dir, "result.txt");
            writeFileSync(file, text, { mode: 0o600 });
            terminal.stdin.setRawMode?.(false);
            spawnSync(ctx.env.PAGER || "less", [file], { stdio: "inherit", shell: false });
            terminal.stdin.setRawMode?.(true);
            rmSync(dir, { recursive: true, force: true });
            app.clear();
            model.notify("back from the pager");
          }}
        />
      </Box>
    );
  }
  const app = render(<Root />, {
    stdin: terminal.stdin,
    stdout: terminal.stdout,
    exitOnCtrlC: false,
    patchConsole: false,
    // Keys still feel instant at 15 frames a second. (Ink's incrementalRendering garbles the screen under tmux.)
    maxFps: 15,
  });
  const interrupted = () => finish();
  ctx.interrupt.addEventListener("abort", interrupted, { once: true });
  await done;
  app.unmount();
  terminal.stdout.write(LEAVE_ALT_SCREEN);
  ctx.interrupt.removeEventListener("abort", interrupted);
  await model.close();
  ctx.io.stderr.write(goodbye ?? "mcp-task: left the dashboard; running tasks go on (mcp-task list shows them)\n");
  return 0;
}
