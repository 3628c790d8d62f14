// settings.json as the commands that write it leave it (src/store/settings.ts, src/commands/server/): never past what
// its reader reads, one write per import, each saved server bounded, and a file that cannot be read left with a way
// back that keeps its servers. In-process; the writes are counted at the rename that puts each one in place.
import { readFileSync, renameSync as realRename, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, beforeEach, expect, it, vi } from "vitest";
import { tempHome } from "../helpers/cli.js";
import {
  MAX_CACHED_VERDICT_BYTES,
  MAX_CACHED_VERDICTS,
  MAX_SAVED_SERVER_BYTES,
  MAX_SETTINGS_BYTES,
} from "../../src/limits.js";

/** Every rename made through node:fs by the code under test (writeOwnFile renames each whole file into place). */
const renames = vi.hoisted(() => [] as string[]);
vi.mock("node:fs", async (original) => {
  const fs = await original<typeof import("node:fs")>();
  const renameSync: typeof fs.renameSync = (from, to) => {
    renames.push(String(to));
    fs.renameSync(from, to);
  };
  return { ...fs, renameSync, default: { ...fs, renameSync } };
});
beforeEach(() => void renames.splice(0));
// The commands are loaded afresh, after the mock: a worker that ran another file first (vitest's isolate: false) has
// them loaded already, on the real node:fs.
let runInProcess: typeof import("../helpers/context.js").runInProcess;
beforeAll(async () => {
  vi.resetModules();
  ({ runInProcess } = await import("../helpers/context.js"));
});

const settingsWrites = () => renames.filter((to) => to.endsWith("settings.json")).length;

/** A client file of `count` stdio servers, each with an argument of `argBytes` characters. */
function clientFile(home: string, count: number, argBytes = 10, prefix = "s"): string {
  const servers: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) servers[`${prefix}${i}`] = { command: "node", args: [`${i}`.padEnd(argBytes, "x")] };
  const file = join(home, `${prefix}-${count}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

it("an import that would make settings.json unreadable saves nothing (exit 2), and every command still reads it", async () => {
  const home = tempHome();
  expect((await runInProcess(["server", "add", "prod", "--url", "https://prod.example.com/mcp"], { home })).code).toBe(
    0,
  );
  const before = readFileSync(join(home, "settings.json"), "utf8");
  // 300 servers of 60 KiB each: every one within its own bound, 17 MiB together.
  const perServer = 60 * 1024;
  const file = clientFile(home, Math.ceil(MAX_SETTINGS_BYTES / perServer) + 20, perServer);
  renames.splice(0);
  const run = await runInProcess(["server", "import", file], { home });
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toMatch(
    /^mcp-task: error: nothing imported: the \d+ new server\(s\) of .* would make .*settings\.json 17 MiB, past the 16 MiB mcp-task reads it at\nhint: import fewer at a time/m,
  );
  expect(settingsWrites()).toBe(0);
  expect(readFileSync(join(home, "settings.json"), "utf8")).toBe(before);
  const list = await runInProcess(["server", "list"], { home });
  expect(list.code, list.stderr).toBe(0);
  expect(list.stdout).toMatch(/prod\s+http\s+https:\/\/prod\.example\.com\/mcp/);
});

it("server add that would make settings.json unreadable saves nothing (exit 2); the file stays readable", async () => {
  const { Settings } = await import("../../src/store/settings.js");
  const home = tempHome();
  const settings = await Settings.open(home);
  const server = (i: number, size: number) => ({
    name: `s${i}`,
    descriptor: { transport: "stdio" as const, command: "node", args: ["x".repeat(size)] },
  });
  // Filled to within 60 KiB of the limit in a few writes: 250 servers, as many more as fit, then to top it up.
  const KiB = 1024;
  const size = () => statSync(join(home, "settings.json")).size;
  settings.saveServers(Array.from({ length: 250 }, (_, i) => server(i, 60 * KiB)));
  const more = Math.floor((MAX_SETTINGS_BYTES - size() - 30 * KiB) / (60 * KiB + 200));
  settings.saveServers(Array.from({ length: more }, (_, i) => server(250 + i, 60 * KiB)));
  for (let i = 900; MAX_SETTINGS_BYTES - size() > 60 * KiB; i++)
    settings.saveServers([server(i, Math.min(60 * KiB, MAX_SETTINGS_BYTES - size() - 30 * KiB))]);
  expect(MAX_SETTINGS_BYTES - size()).toBeLessThan(60 * KiB);
  const before = readFileSync(join(home, "settings.json"), "utf8");
  const add = await runInProcess(["server", "add", "one-more", "--stdio", `node ${"y".repeat(60 * 1024)}`], { home });
  expect(add.code).toBe(2);
  expect(add.stderr).toMatch(
    /^mcp-task: error: not saved: \S+settings\.json would be \d+ bytes, past the 16777216 mcp-task reads it at\nhint: remove saved servers you no longer use/,
  );
  expect(readFileSync(join(home, "settings.json"), "utf8")).toBe(before);
  expect((await runInProcess(["server", "list"], { home })).code).toBe(0);
});

it("importing 1,000 servers is one write of settings.json; server add is one write too", async () => {
  const home = tempHome();
  const run = await runInProcess(["server", "import", clientFile(home, 1000)], { home });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toMatch(/imported 1000 server\(s\)/);
  expect(settingsWrites()).toBe(1);
  const saved = JSON.parse(readFileSync(join(home, "settings.json"), "utf8"));
  expect(Object.keys(saved.servers)).toHaveLength(1000);
  expect(saved.defaultServer).toBe("s0");
  renames.splice(0);
  const added = await runInProcess(
    ["server", "add", "api", "--url", "https://api.example.com/mcp", "--client-id", "c1", "--scope", "read"],
    { home },
  );
  expect(added.code, added.stderr).toBe(0);
  expect(settingsWrites()).toBe(1);
});

it("a server past MAX_SAVED_SERVER_BYTES is refused by name, at import and at server add; the others are saved", async () => {
  const home = tempHome();
  const file = join(home, "mixed.json");
  const long = "x".repeat(MAX_SAVED_SERVER_BYTES);
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { ok: { command: "node" }, huge: { url: "https://h.example.com/mcp", headers: { X: long } } },
    }),
  );
  const run = await runInProcess(["server", "import", file], { home });
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/imported 1 server\(s\): ok\n/);
  expect(run.stderr).toMatch(
    /not imported: huge: its address, headers, command line, arguments and environment take \d+ bytes, past the 65536 a saved server may take/,
  );
  const added = await runInProcess(["server", "add", "big", "--stdio", `node ${long}`], { home });
  expect(added.code).toBe(2);
  expect(added.stderr).toMatch(
    /^mcp-task: error: server big not saved: its address, .* past the 65536 a saved server may take\n/,
  );
  expect(Object.keys(JSON.parse(readFileSync(join(home, "settings.json"), "utf8")).servers)).toEqual(["ok"]);
});

it("names that become one once saved are refused together, named; nothing is saved silently in their place", async () => {
  const home = tempHome();
  const file = join(home, "mcp.json");
  writeFileSync(
    file,
    '{"mcpServers": {"GitHub Copilot": {"command": "gh-a"}, "GitHub-Copilot": {"command": "gh-b"}, "fine": {"command": "f"}}}',
  );
  const run = await runInProcess(["server", "import", file], { home });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(
    'not imported: GitHub Copilot: "GitHub Copilot" and "GitHub-Copilot" would both be saved as GitHub-Copilot: which one is meant is not clear',
  );
  expect(run.stderr).toMatch(/not imported: GitHub-Copilot: /);
  expect(Object.keys(JSON.parse(readFileSync(join(home, "settings.json"), "utf8")).servers)).toEqual(["fine"]);
});

it("a settings.json too large to read names a way back that keeps its servers, and that way works", async () => {
  const home = tempHome();
  const settings = join(home, "settings.json");
  // As an older version could leave it: servers, and a cache grown past the limit.
  const verdicts: Record<string, unknown> = {};
  for (let i = 0; i < 300; i++)
    verdicts[`k${i}`] = { verdict: { kind: "modern", discover: { instructions: "x".repeat(60_000) } }, at: 1 };
  const servers = {
    prod: { transport: "http", url: "https://prod.example.com/mcp", headers: { Authorization: "Bearer ${env:TOKEN}" } },
    local: { transport: "stdio", command: "node", args: ["server.js"], env: { LEVEL: "1" } },
  };
  writeFileSync(settings, JSON.stringify({ servers, defaultServer: "prod", verdicts }), { mode: 0o600 });
  const list = await runInProcess(["server", "list"], { home });
  expect(list.code).toBe(2);
  const hint = /^hint: move it aside and import its servers back: (mv \S+ \S+) && mcp-task (server import \S+)$/m.exec(
    list.stderr,
  );
  expect(hint, list.stderr).not.toBeNull();
  const [from, to] = hint![1]!.split(" ").slice(1);
  expect(from).toBe(settings);
  realRename(from!, to!);
  const back = await runInProcess(hint![2]!.split(" "), { home });
  expect(back.code, back.stderr).toBe(0);
  const listed = await runInProcess(["server", "list"], { home });
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toMatch(/prod\s+http\s+https:\/\/prod\.example\.com\/mcp/);
  expect(listed.stdout).toMatch(/local\s+stdio\s+node server\.js/);
  expect(JSON.parse(readFileSync(settings, "utf8")).servers).toEqual(servers);
});

it("verdicts a server writes (its discover result) are kept only up to MAX_CACHED_VERDICT_BYTES, the newest MAX_CACHED_VERDICTS", async () => {
  const { Settings } = await import("../../src/store/settings.js");
  const home = tempHome();
  const settings = await Settings.open(home);
  const discover = (size: number) => ({ kind: "modern", discover: { instructions: "x".repeat(size) } }) as never;
  settings.saveVerdict("huge", discover(MAX_CACHED_VERDICT_BYTES), 1);
  expect(settings.verdict("huge", 1)).toBeUndefined();
  for (let i = 0; i < MAX_CACHED_VERDICTS + 10; i++) settings.saveVerdict(`k${i}`, discover(10), 1);
  const kept = Object.keys(JSON.parse(readFileSync(join(home, "settings.json"), "utf8")).verdicts);
  expect(kept).toHaveLength(MAX_CACHED_VERDICTS);
  expect(kept.at(-1)).toBe(`k${MAX_CACHED_VERDICTS + 9}`);
  expect(kept[0]).toBe("k10");
});
