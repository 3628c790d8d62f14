// `list --remote` against a server whose tasks/list does not end (test/servers/hostile-server.ts endless-list,
// looping-list): the reading stops at its bounds, what was read is printed, and the command says the list was cut
// (exit 4, code list_cut).
import { describe, expect, it } from "vitest";
import { MAX_REMOTE_LIST_PAGES, MAX_REMOTE_LIST_ROWS } from "../../src/limits.js";
import { tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { withHttp } from "../helpers/hostile.js";
import { expectClean, expectError } from "../helpers/hostile.js";

describe("list --remote reads a server's list within bounds", { timeout: 120_000 }, () => {
  it("endless pages: MAX_REMOTE_LIST_ROWS tasks read and printed, then exit 4 naming the bound", async () => {
    await withHttp("endless-list", "v1", async ({ url }) => {
      const home = tempHome();
      const run = await runInProcess(["list", "--remote", "-s", url, "--json"], { home });
      expect(run.code, run.stderr).toBe(4);
      expectClean(run);
      const [document, error] = run.stdout.trimEnd().split("\n");
      const rows = JSON.parse(document) as Array<{ taskId: string; remoteOnly: boolean }>;
      expect(rows).toHaveLength(MAX_REMOTE_LIST_ROWS);
      expect(rows.every((row) => row.remoteOnly)).toBe(true);
      expect(new Set(rows.map((row) => row.taskId)).size).toBe(MAX_REMOTE_LIST_ROWS);
      expect(JSON.parse(error)).toMatchObject({
        type: "error",
        exitCode: 4,
        code: "list_cut",
        message: expect.stringMatching(new RegExp(`task list was cut at ${MAX_REMOTE_LIST_ROWS} tasks`)),
      });
    });
  });

  it("endless small pages: MAX_REMOTE_LIST_PAGES pages read, then exit 4 naming the bound", async () => {
    await withHttp(
      "endless-list",
      "v1",
      async ({ url }) => {
        const home = tempHome();
        const run = await runInProcess(["list", "--remote", "-s", url], { home });
        expectError(run, 4, new RegExp(`task list was cut at ${MAX_REMOTE_LIST_PAGES} pages`));
        const lines = run.stdout.trimEnd().split("\n");
        expect(lines).toHaveLength(MAX_REMOTE_LIST_PAGES);
        expect(lines.every((line) => line.includes("(server only)"))).toBe(true);
      },
      "--page",
      "1",
    );
  });

  it("a cursor given twice ends the listing: each task once, exit 4 saying the pages loop", async () => {
    await withHttp("looping-list", "v1", async ({ url }) => {
      const home = tempHome();
      const run = await runInProcess(["list", "--remote", "-s", url], { home });
      expectError(run, 4, /cut after 6 tasks \(3 pages\).*a cursor it had given before/);
      const ids = run.stdout
        .trimEnd()
        .split("\n")
        .map((line) => line.split(/\s+/)[0]);
      expect(ids.sort()).toEqual(["listed-0-0", "listed-0-1", "listed-1-0", "listed-1-1"]);
    });
  });
});
