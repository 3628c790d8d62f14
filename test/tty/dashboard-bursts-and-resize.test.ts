// The dashboard of the real binary in a real terminal (tmux): keys sent in bursts (one write each) all act, in their
// order, whatever the frame rate; a resize, narrower and shorter then wider and taller, leaves nothing of the frame
// before it, and at 80 columns status, tool, id, server, age, ttl and message stay (the time in status gives way).
import { afterEach, expect, it } from "vitest";
import { tempHome } from "../helpers/cli.js";
import { saveHandle, taskDir } from "../helpers/large-store.js";
import { bin, tmuxTerminal } from "../helpers/tmux.js";

const { screen, keys, waitFor, terminal, close, resize } = tmuxTerminal("mcp-task-tty-burst");
afterEach(() => close());

/** The screen's lines, and the one that shows the selection mark. */
const lines = () => screen().split("\n");
const selectedLine = () => lines().find((line) => line.startsWith("›")) ?? "";

it(
  "bursts of keys all act, in order; a resize leaves no fragment of the frame before it",
  { timeout: 120_000 },
  async () => {
    const home = tempHome();
    const dir = taskDir(home);
    // Newest first: demo5 on top, then demo4... demo0, then the two "other" tasks (created first).
    for (let i = 0; i < 2; i++) saveHandle(dir, `other${i}-task`, i, true);
    for (let i = 0; i < 6; i++) saveHandle(dir, `demo${i}-task`, 10 + i, true);
    terminal(home, `${bin} dashboard`, ["-x", "130", "-y", "40"]);
    await waitFor(/8 tasks, 0 followed/);
    expect(selectedLine()).toMatch(/^›✓ completed +bench +demo5-ta…/);

    // Four Down keys in one write: four rows down.
    keys("Down", "Down", "Down", "Down");
    await waitFor(/^›✓ completed +bench +demo1-ta…/m);
    // Two j in one write: two more.
    keys("j", "j");
    await waitFor(/^›✓ completed +bench +other1-t…/m);
    // "/demo1" then two Backspaces, each a burst: the filter shows and filters "dem".
    keys("-l", "/demo1");
    await waitFor(/\/ demo1▏/);
    keys("BSpace", "BSpace");
    const filtered = await waitFor(/filter all "dem"/);
    expect(filtered).toMatch(/mcp-task dashboard {2}\/ dem▏/);
    expect(filtered.match(/bench +demo\d-ta…/g)).toHaveLength(6);
    expect(filtered).not.toMatch(/other\d-t…/);
    // Enter, then Escape clears the filter: every task again.
    keys("Enter");
    await waitFor(/↑↓ move/);
    keys("Escape");
    await waitFor(/filter all · sort newest/);
    expect(screen().match(/bench +(demo|other)\d-t/g)).toHaveLength(8);
    // Cancel asks about the selected task by its id and tool; n leaves it be.
    keys("g", "c");
    await waitFor(/cancel task demo5-ta… \(bench\)\? \(y\/n\)/);
    keys("n");
    await waitFor(/↑↓ move/);

    // Narrower and shorter: one frame, at 80 columns every column but the time in status, nothing below the help bar.
    resize("-x", "80", "-y", "24");
    const narrow = await waitFor(/^ +STATUS +TOOL +ID +SERVER +AGE +TTL +MESSAGE/m);
    const expectOneFrame = (text: string) => {
      const rows = text.split("\n");
      expect(
        rows.filter((line) => line.includes("mcp-task dashboard")),
        text,
      ).toHaveLength(1);
      expect(
        rows.filter((line) => /\bSTATUS +TOOL +ID\b/.test(line)),
        text,
      ).toHaveLength(1);
      const help = rows.findIndex((line) => line.includes("q quit"));
      expect(help, text).toBeGreaterThan(0);
      expect(
        rows.slice(help + 1).filter((line) => line.trim() !== ""),
        text,
      ).toEqual([]);
    };
    expectOneFrame(narrow);
    for (const line of narrow.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
    expect(narrow).toMatch(/✓ completed +bench +demo5-ta… +bench +\d+d +- +message of demo5-…/);
    // Wider and taller again: the wide frame, and nothing of the narrow one (its wrapped help bar, its columns).
    resize("-x", "130", "-y", "40");
    const wide = await waitFor(/SERVER {12,}AGE/);
    expectOneFrame(wide);
    expect(wide.match(/bench +(demo|other)\d-t/g)).toHaveLength(8);
    keys("q");
    expect(await waitFor(/EXIT=\d+/)).toMatch(/EXIT=0/);
  },
);
