// A connection that closes under a request before any reply (a server closing a kept-alive connection as idle, just as
// the client sends on it): a read is sent again on a new connection, a call never is (the server may have started it).
// The hostile server (test/servers/hostile-server.ts --drop-first) closes the connection of the first request of each
// method named: no real server closes one on cue, which is why the race shows only on a loaded machine.
import { describe, expect, it } from "vitest";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { BOTH, withHttp } from "../helpers/hostile.js";
import { until } from "../helpers/until.js";

describe("stale connections", () => {
  for (const generation of BOTH) {
    it(`a read is sent again, a call is not (${generation})`, async () => {
      await withHttp(
        "reused-id",
        generation,
        async (server) => {
          let log = "";
          server.process.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
          const count = (what: string) => log.split("\n").filter((line) => line.endsWith(what)).length;
          const home = tempHome();
          // The call's connection closes under it: one line, exit 4, and the server got it once.
          const lost = await runInProcess(["call", "slow", "seconds=0.2", "--detach", "--json", "-s", server.url], {
            home,
          });
          expect(lost.code, lost.stderr).toBe(4);
          expect(String(events(lost.stdout).at(-1)?.message)).toMatch(/the connection (closed|was reset)/);
          // The server's log comes through a pipe: what it says is waited for (hang-only: until's bound).
          await until(() => count("received tools/call") === 1, { what: "the server to log the call" });
          // The next call is answered; the first read of its task (a one-shot get), sent again, is too.
          const started = await runInProcess(["call", "slow", "seconds=0.2", "--detach", "-s", server.url], { home });
          expect(started.code, started.stderr).toBe(0);
          await until(() => count("received tools/call") >= 2, { what: "the server to log the second call" });
          expect(count("received tasks/get")).toBe(0);
          const got = await runInProcess(["get", "reused-task-id", "--json"], { home });
          expect(got.code, got.stderr).toBe(0);
          await until(() => count("received tasks/get") >= 2, { what: "the server to log the read sent again" });
          expect(count("dropped tasks/get")).toBe(1);
          // Two calls in all: the first, whose connection closed under it, was not sent again.
          expect(count("received tools/call")).toBe(2);
        },
        "--drop-first",
        "tools/call,tasks/get",
      );
    });
  }
});
