// Generation verdicts: what mcp-task keeps of which generation a server speaks (settings.json "verdicts"), and how it
// is checked. A server that moves from the 2026-07-28 generation (our V2 test server) to 2025-11-25 (the official
// SDK's v1 line) at the same address, over HTTP (the same port) and over stdio (a wrapper whose command line stays
// the same), is reached after the change: with the usual discover result (ttlMs 0: checked each time), and with one
// that said it may be kept for an hour (used unchecked, then negotiated again once its first request is refused).
// `server add`/`remove` drop a server's verdict, and `server forget-verdict` forgets it.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { freePort, SDK_V1_SERVER, startListening, V2_SERVER, type RunningServer } from "../helpers/servers.js";

type Verdicts = Record<string, { verdict: { kind: string; discover?: { ttlMs?: number } }; at: number }>;
const verdictsOf = (home: string): Verdicts =>
  (JSON.parse(readFileSync(join(home, "settings.json"), "utf8")) as { verdicts: Verdicts }).verdicts;
const kinds = (home: string) => Object.values(verdictsOf(home)).map((saved) => saved.verdict.kind);

/** A second home with the first one's settings (its verdict): two commands, each the first after the change. */
function twin(home: string): string {
  const other = tempHome();
  copyFileSync(join(home, "settings.json"), join(other, "settings.json"));
  return other;
}

/** After the change: `tools` (a plain connection: with a fresh verdict, renegotiated on its first answer) and `call`
 *  (a task's: its verdict checked at the start), each the first command there since; both find V1. */
async function bothWork(home: string, server: string[]): Promise<void> {
  const other = twin(home);
  const tools = await runInProcess(["tools", ...server], { home: other });
  expect(tools.code, tools.stderr).toBe(0);
  expect(tools.stdout).toMatch(/: V1 \(protocol 2025-11-25\)/);
  expect(kinds(other)).toEqual(["legacy"]);
  const after = await runInProcess(["call", "work", "ms=200", ...server, "--json"], { home });
  expect(after.code, after.stderr).toBe(0);
  expect(events(after.stdout)[0]).toMatchObject({ type: "task", generation: "v1" });
  expect(after.stdout).toContain("work done after 200 ms");
  expect(kinds(home)).toEqual(["legacy"]);
}

/** The kept discover results now say they may be used unchecked for an hour (a server that declared ttlMs 3600000). */
function keepForAnHour(home: string): void {
  const file = join(home, "settings.json");
  const settings = JSON.parse(readFileSync(file, "utf8")) as { verdicts: Verdicts };
  for (const saved of Object.values(settings.verdicts))
    if (saved.verdict.discover) saved.verdict.discover.ttlMs = 3_600_000;
  writeFileSync(file, JSON.stringify(settings), { mode: 0o600 });
}

const ttls = [
  { name: "ttlMs 0 (checked each time)", longTtl: false },
  { name: "ttlMs 1 h (used unchecked, renegotiated on refusal)", longTtl: true },
];

describe.each(ttls)(
  "a server that moves from V2 to V1 at the same address, $name",
  { timeout: 90_000 },
  ({ longTtl }) => {
    it("over HTTP (the same port): the next tools and call work, and the verdict is V1's", async () => {
      const home = tempHome();
      const port = await freePort();
      let server: RunningServer = await startListening([V2_SERVER, "--port", String(port), "--quiet"], "v2 server");
      const url = server.url;
      try {
        const before = await runInProcess(["tools", "-s", url], { home });
        expect(before.code, before.stderr).toBe(0);
        expect(kinds(home)).toEqual(["modern"]);
        if (longTtl) keepForAnHour(home);
        await server.stop();
        server = await startListening([SDK_V1_SERVER, "--port", String(port)], "sdk v1 server");
        expect(server.url).toBe(url);
        await bothWork(home, ["-s", url]);
      } finally {
        await server.stop();
      }
    });

    it("over stdio (a wrapper whose command line stays the same): the next tools and call work as V1", async () => {
      const home = tempHome();
      const choice = join(home, "server.js");
      const wrapper = join(home, "server.sh");
      writeFileSync(wrapper, `#!/bin/sh\nexec node "$(cat '${choice}')" --stdio --quiet\n`, { mode: 0o700 });
      writeFileSync(choice, V2_SERVER);
      const stdio = `sh ${wrapper}`;
      const before = await runInProcess(["tools", "--stdio", stdio], { home });
      expect(before.code, before.stderr).toBe(0);
      expect(kinds(home)).toEqual(["modern"]);
      if (longTtl) keepForAnHour(home);
      writeFileSync(choice, SDK_V1_SERVER);
      await bothWork(home, ["--stdio", stdio]);
    });
  },
);

describe("keeping verdicts", { timeout: 60_000 }, () => {
  it("server add and remove drop a server's verdict; server forget-verdict forgets it", async () => {
    const home = tempHome();
    const server = await startListening([V2_SERVER, "--port", "0", "--quiet"], "v2 server");
    try {
      const tools = () => runInProcess(["tools", "-s", "it"], { home });
      expect((await runInProcess(["server", "add", "it", "--url", server.url], { home })).code).toBe(0);
      expect((await tools()).code).toBe(0);
      expect(kinds(home)).toEqual(["modern"]);
      expect((await runInProcess(["server", "remove", "it"], { home })).code).toBe(0);
      expect(kinds(home)).toEqual([]);
      expect((await runInProcess(["server", "add", "it", "--url", server.url], { home })).code).toBe(0);
      expect((await tools()).code).toBe(0);
      expect((await runInProcess(["server", "add", "it", "--url", server.url], { home })).code).toBe(0);
      expect(kinds(home)).toEqual([]);
      expect((await tools()).code).toBe(0);
      const forget = await runInProcess(["server", "forget-verdict", "-s", "it"], { home });
      expect(forget.code, forget.stderr).toBe(0);
      expect(forget.stderr).toMatch(/forgot the generation of it; the next command asks the server again/);
      expect(kinds(home)).toEqual([]);
      const again = await runInProcess(["server", "forget-verdict", "-s", server.url], { home });
      expect(again.stderr).toMatch(/no generation was kept/);
    } finally {
      await server.stop();
    }
  });
});
