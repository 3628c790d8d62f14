// After each test file: stop the brokers its commands started (a task left waiting for input keeps its broker
// alive by design), and check that no broker or server process is left behind; and stop and name any test server
// (helpers/servers.ts) that its tests or hooks left running. (helpers/global-setup.ts does the same for the
// whole suite, for any process it started.)
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, setGlobalDispatcher } from "undici";
import { afterAll } from "vitest";
import { homes } from "./cli.js";
import { startedServers } from "./servers.js";

// In-process commands share this worker's connection pool (the built-in fetch's global dispatcher), which no two
// commands of the binary ever do: a command's process and its pool end together. A socket one test left idle can be
// picked up by the next command against a shared server just as the server closes it (Node servers close an idle
// socket after 5 s; undici's own margin below a server's Keep-Alive hint is 1 s, which a loaded worker's late timer
// can miss), and that command then fails with "the connection closed" (exit 4): seen under load, never a defect. Here
// an idle socket is kept 1 s at most, far inside any server's keep-alive. Requests within a command still reuse it.
setGlobalDispatcher(new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 }));
// A worker runs many files with its modules loaded once (vitest.config.ts: isolate: false): React's act() environment,
// which a file driving a tree with act turns on (helpers/ink.ts mount), starts off in every file.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;

function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

interface Ref {
  pid: number;
  start: string;
}

function startOf(pid: number): string | undefined {
  try {
    return `proc:${readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[19]}`;
  } catch {
    return undefined;
  }
}

function describe(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "?";
  }
}

afterAll(async () => {
  // Runs after the file's own afterAll hooks (vitest runs after-hooks last registered first): what they stop is gone.
  const servers = [...startedServers].filter(([child]) => child.exitCode === null && child.signalCode === null);
  for (const [child] of servers) {
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGKILL");
    await exited;
  }
  // Named, not failed: a test that failed before stopping its server is failed already, and a file's shared server
  // started by a test may be left to the file's end on purpose. Either way nothing is left running.
  if (servers.length)
    console.warn(
      `test servers left running by this file (stopped now): ${servers.map(([child, name]) => `${child.pid} (${name})`).join(", ")}`,
    );
}, 20_000);

afterAll(async () => {
  const pids: number[] = [];
  for (const home of homes) {
    const dir = join(home, "brokers");
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      try {
        const meta = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
          pid: number;
          serverPid?: number;
          process?: Ref;
          server?: Ref;
        };
        // Only pids still the recorded processes (a test may leave a record whose pids are reused).
        const ours = [meta.process, meta.server]
          .filter((ref): ref is Ref => ref !== undefined && startOf(ref.pid) === ref.start)
          .map((ref) => ref.pid);
        pids.push(...ours);
        if (ours.includes(meta.pid)) process.kill(meta.pid, "SIGINT"); // the broker's orderly shutdown
      } catch {
        /* already gone */
      }
    }
  }
  const until = Date.now() + 10_000;
  while (pids.some(running) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  const left = pids.filter(running);
  const described = left.map((pid) => `${pid} (${describe(pid)})`);
  for (const pid of left) process.kill(pid, "SIGKILL");
  if (left.length) throw new Error(`processes left behind: ${described.join(", ")}`);
}, 20_000);
