// `check` (src/tasks/check.ts) against real servers, in-process: our V2 server, the demo server (both generations),
// server-everything and the SDK v1 server pass; a hostile server that breaks a rule fails the check that meets it,
// naming the spec section, with mcp-task's own error, and the report is valid JUnit with server text escaped.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { systemClock } from "../../src/context.js";
import { junitReport } from "../../src/output/junit.js";
import { connect } from "../../src/protocol/connect.js";
import { checkServer, type CheckResult } from "../../src/tasks/check.js";
import { TaskEngine } from "../../src/tasks/engine.js";
import {
  ROOT,
  everythingStdio,
  startDemoHttp,
  startEverythingHttp,
  startHostileHttp,
  startListening,
  startSdkInteractiveExample,
  startV2Http,
  v2Stdio,
  type RunningServer,
} from "../helpers/servers.js";

const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

async function check(url: string, tool?: string, args?: Record<string, unknown>): Promise<CheckResult[]> {
  const wire = await connect({ transport: "http", url }, { env: {} });
  try {
    return await checkServer(new TaskEngine(wire, systemClock), { tool, args, timeoutMs: 20_000, clock: systemClock });
  } finally {
    await wire.close();
  }
}
const byName = (results: CheckResult[]) => Object.fromEntries(results.map((r) => [r.name, r]));
/** Every check that failed, with why (empty for a server that is right). */
const failures = (results: CheckResult[]) =>
  results.filter((r) => r.status === "fail").map((r) => `${r.name}: ${r.detail}`);
/** The checks a good server passes on top of the life of a task: its end kept under a cancel, ids, timestamps. */
const BOTH = ["timestamps", "cancel-ended", "task-ids-unique"];
/** And on 2026-07-28 over HTTP: the gating probes, and pushes that agree with tasks/get. */
const V2_HTTP = [...BOTH, "extension-required", "mcp-name-routing", "push-agrees"];
function expectPass(results: Record<string, CheckResult>, names: string[]): void {
  for (const name of names) expect(results[name]!.status, `${name}: ${results[name]!.detail}`).toBe("pass");
}

// Concurrent: each test has its servers and home (the V2 server of beforeAll is shared, read-only), and what they
// wait on is their tasks' lives, which overlap.
describe.concurrent("check", { timeout: 60_000 }, () => {
  let v2: RunningServer;
  beforeAll(async () => {
    v2 = await startV2Http();
    servers.push(v2);
  });

  it("a V2 server that is right passes every check it can meet", async () => {
    const all = await check(v2.url, "task_complete", { ms: 1500 });
    expect(failures(all)).toEqual([]);
    const results = byName(all);
    expectPass(results, V2_HTTP);
    expect(results["tasks-list"]!).toMatchObject({ status: "skip", detail: "not a rule of 2026-07-28" });
    expect(results["extension-required"]!.spec).toBe("2026-07-28 io.modelcontextprotocol/tasks#protocol-errors");
    for (const name of ["tools-list", "task-support", "task-created", "task-get", "poll-interval", "ttl"])
      expect(results[name]!.status, `${name}: ${results[name]!.detail}`).toBe("pass");
    for (const name of ["task-ends", "task-result", "task-final", "cancel", "unknown-task"])
      expect(results[name]!.status, `${name}: ${results[name]!.detail}`).toBe("pass");
    expect(results["task-created"]!.detail).toMatch(/^task \S+, working/);
  });

  it("server-everything (V1) passes too, checked with its research task", async () => {
    const everything = await startEverythingHttp();
    servers.push(everything);
    const all = await check(everything.url, "simulate-research-query", { topic: "python" });
    expect(failures(all)).toEqual([]);
    const results = byName(all);
    expectPass(results, [...BOTH, "tasks-list", "push-agrees"]);
    expect(results["extension-required"]!).toMatchObject({ status: "skip", detail: "not a rule of 2025-11-25" });
    expect(results["task-ends"]!.spec).toBe("2025-11-25 basic/utilities/tasks#task-status-lifecycle");
    for (const name of ["tools-list", "task-support", "task-created", "task-get", "task-ends", "task-result"])
      expect(results[name]!.status, `${name}: ${results[name]!.detail}`).toBe("pass");
    for (const name of ["task-final", "cancel", "unknown-task"])
      expect(results[name]!.status, `${name}: ${results[name]!.detail}`).toBe("pass");
  });

  it.each([
    ["the demo server (V2)", ["--generation", "v2"]],
    ["the demo server (V1)", ["--generation", "v1"]],
  ])("%s passes with its export (cancellable) task", async (_name, generation) => {
    const store = mkdtempSync(join(tmpdir(), "mcp-task-check-demo-"));
    const demo = await startDemoHttp(0, store, "--speed", "5", ...generation);
    servers.push(demo);
    // About 2 s a task: long enough for the cancel check to reach a task still running, even on a loaded machine.
    const all = await check(demo.url, "export_ledger", { rows: 8000 });
    expect(failures(all)).toEqual([]);
    const results = byName(all);
    expectPass(results, generation[1] === "v2" ? V2_HTTP : [...BOTH, "tasks-list", "push-agrees"]);
    for (const name of ["tools-list", "task-support", "task-created", "task-get", "poll-interval", "ttl"])
      expect(results[name]!.status, `${name}: ${results[name]!.detail}`).toBe("pass");
    for (const name of ["task-ends", "task-result", "task-final", "cancel", "unknown-task"])
      expect(results[name]!.status, `${name}: ${results[name]!.detail}`).toBe("pass");
  });

  it("a server on the official SDK's v1 line passes too", async () => {
    const sdk = await startListening(
      [join(ROOT, "dist/test-servers/sdk-v1-server.js"), "--port", "0"],
      "sdk v1 server",
    );
    servers.push(sdk);
    const all = await check(sdk.url, "work", { ms: 1500 });
    expect(failures(all)).toEqual([]);
    const results = byName(all);
    expectPass(results, ["timestamps", "cancel-ended", "tasks-list"]);
    for (const name of [
      "tools-list",
      "task-support",
      "task-created",
      "task-get",
      "task-ends",
      "task-result",
      "task-final",
    ])
      expect(results[name]!.status, `${name}: ${results[name]!.detail}`).toBe("pass");
    expect(results["cancel"]!.status, results["cancel"]!.detail).not.toBe("fail");
    expect(results["unknown-task"]!.status, results["unknown-task"]!.detail).not.toBe("fail");
  });

  it("the SDK's simpleTaskInteractive example fails nothing: no tasks/cancel is not offered, a question unanswered is not tested", async () => {
    const example = await startSdkInteractiveExample();
    servers.push(example);
    const all = await check(example.url);
    expect(failures(all)).toEqual([]);
    const results = byName(all);
    expect(results["task-created"]!.status, results["task-created"]!.detail).toBe("pass");
    // Its tools ask at once: the check answers no question, so the task's end is not tested (nor caused by the check).
    expect(results["task-ends"]!).toMatchObject({ status: "skip" });
    expect(results["task-ends"]!.detail).toMatch(/asks for input/);
    // tasks/cancel is optional, and this server does not offer it.
    expect(results["cancel"]!).toMatchObject({ status: "skip" });
    expect(results["cancel"]!.detail).toMatch(/does not offer tasks\/cancel/);
  });

  it("a --tool the server does not list, or --args it would refuse, is a usage error (exit 2), not a failed check", async () => {
    const home = tempHome();
    const missing = await runInProcess(["check", "-s", v2.url, "--tool", "nope"], { home });
    expect(missing.code, missing.stdout).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(/^mcp-task: error: .* has no tool named nope\n/);
    expect(missing.stderr).toContain(`hint: list the tools with: mcp-task tools -s ${v2.url}`);
    const bad = await runInProcess(["check", "-s", v2.url, "--tool", "task_slow", "--args", '{"ms":"x"}'], { home });
    expect(bad.code, bad.stdout).toBe(2);
    expect(bad.stderr).toMatch(/the arguments do not fit task_slow's inputSchema/);
    const stdio = await runInProcess(["check", "--stdio", v2Stdio(), "--tool", "nope"], { home });
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain(`hint: list the tools with: mcp-task tools --stdio '${v2Stdio()}'`);
  });

  it("without --tool, check tries the task tools whose arguments it can fill until one makes a task", async () => {
    const home = tempHome();
    // The two servers at once: each sits through its task's life (server-everything's research takes 4 s).
    const [v2Run, ev] = await Promise.all([
      runInProcess(["check", "--stdio", v2Stdio(), "--json"], { home }),
      runInProcess(["check", "--stdio", everythingStdio, "--json"], { home }),
    ]);
    // Our V2 server decides per call: echo, greet (its required name filled) and _stats answer with a result.
    expect(v2Run.code, v2Run.stdout).toBe(0);
    const v2Checks = byName(JSON.parse(v2Run.stdout).checks);
    expect(v2Checks["task-created"]!.detail).toMatch(/^task \S+, working \(slow_compute\)$/);
    expect(failures(Object.values(v2Checks))).toEqual([]);
    // server-everything's one task tool needs a topic, which its schema leaves to a placeholder.
    expect(ev.code, ev.stdout).toBe(0);
    const evChecks = byName(JSON.parse(ev.stdout).checks);
    expect(evChecks["task-created"]!.detail).toMatch(/\(simulate-research-query\)$/);
    expect(evChecks["task-ends"]!.status).toBe("pass");
  });

  it("a check that created no task checked nothing: exit 1, a line that says so, a failed JUnit case", async () => {
    const junit = join(mkdtempSync(join(tmpdir(), "mcp-task-check-")), "none.xml");
    const run = await runInProcess(["check", "-s", v2.url, "--tool", "echo", "--junit", junit], { home: tempHome() });
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toMatch(
      /warn +answers a task-augmented call with a task: no task: echo answered with a result, not a task\n/,
    );
    expect(run.stdout).not.toMatch(/no check failed/);
    expect(run.stdout).toMatch(
      /\nnothing was checked: no task was created; name a tool that runs as a task with: --tool NAME --args JSON\n$/,
    );
    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(/<testsuite [^>]*tests="21" failures="1" errors="0"/);
    expect(xml).toContain('name="nothing-checked" time="0.000">\n    <failure message="nothing was checked');
    const json = await runInProcess(["check", "-s", v2.url, "--tool", "echo", "--json"], { home: tempHome() });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).created).toBe(false);
  });

  it("--junit on a server that cannot be reached still writes a report: one errored case naming the cause", async () => {
    const junit = join(mkdtempSync(join(tmpdir(), "mcp-task-check-")), "down.xml");
    const down = await startV2Http();
    await down.stop();
    const run = await runInProcess(["check", "-s", down.url, "--junit", junit], { home: tempHome() });
    expect(run.code, run.stderr).toBe(4);
    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(/<testsuite [^>]*tests="1" failures="0" errors="1"/);
    expect(xml).toMatch(
      /<testcase [^>]*name="check"[^>]*>\n {4}<error message="cannot (connect to|reach) [^"]+" type="server"\/>/,
    );
    // A server that exits before it answers: the same.
    const crashed = junit.replace("down.xml", "crashed.xml");
    const crash = await runInProcess(["check", "--stdio", "node -e 'process.exit(3)'", "--junit", crashed], {
      home: tempHome(),
    });
    expect(crash.code, crash.stderr).toBe(4);
    expect(readFileSync(crashed, "utf8")).toMatch(/<error message="[^"]+" type="server"\/>/);
  });

  it("a result that breaks its outputSchema fails task-result; a tasks/get for another task fails task-get", async () => {
    const breach = await startHostileHttp("output-schema-breach", "v2");
    servers.push(breach);
    const report = byName(await check(breach.url, "report"));
    expect(report["task-result"]!.status).toBe("fail");
    expect(report["task-result"]!.detail).toMatch(/outputSchema/);

    const other = await startHostileHttp("get-other-id", "v1");
    servers.push(other);
    const mixed = byName(await check(other.url, "other"));
    expect(mixed["task-created"]!.status).toBe("pass");
    expect(mixed["task-get"]!.status).toBe("fail");
    expect(mixed["task-get"]!.detail).toMatch(/another task|other task|asked for/);
  });

  it("mcp-task check: a line per check, exit 0 when none fails, 1 when one does, and a JUnit file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-task-check-"));
    const ok = await runInProcess(
      ["check", "-s", v2.url, "--tool", "task_complete", "--args", '{"ms":800}', "--junit", join(dir, "ok.xml")],
      { home: tempHome() },
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/ok +answers a task-augmented call with a task: task \S+, working/);
    expect(ok.stdout).toMatch(/no check failed \(20 checks\)/);
    const xml = readFileSync(join(dir, "ok.xml"), "utf8");
    expect(xml).toMatch(/<testsuite [^>]*tests="20" failures="0"/);
    expect(xml).toContain('<property name="spec" value="2026-07-28 io.modelcontextprotocol/tasks#task-polling"/>');
    const breach = await startHostileHttp("output-schema-breach", "v1");
    servers.push(breach);
    const bad = await runInProcess(["check", "-s", breach.url, "--tool", "report", "--json"], { home: tempHome() });
    expect(bad.code, bad.stderr).toBe(1);
    const doc = JSON.parse(bad.stdout);
    expect(doc.checks.find((c: CheckResult) => c.name === "task-result")).toMatchObject({
      status: "fail",
      spec: "2025-11-25 basic/utilities/tasks#result-retrieval",
    });
    // That server lists its tasks, but answers a cursor it never gave with a page.
    expect(doc.checks.find((c: CheckResult) => c.name === "tasks-list")).toMatchObject({
      status: "fail",
      detail: "listed on page 1, but a cursor it never gave is answered with a page",
    });
    // In text, a failed check names the section it enforces.
    const text = await runInProcess(["check", "-s", breach.url, "--tool", "report"], { home: tempHome() });
    expect(text.stdout).toMatch(
      /FAIL +gives the outcome of the ended task: .*\n +spec: 2025-11-25 basic\/utilities\/tasks#result-retrieval/,
    );
  });

  // Each case breaks one rule and keeps the others check meets (hostile-server.ts): that check fails, naming its
  // section, and no other new check does.
  it.each([
    ["ungated", "v2", "extension-required", /answered with the task/, "#protocol-errors"],
    ["misrouted", "v2", "mcp-name-routing", /answered with the task/, "#streamable-http-routing-headers"],
    [
      "push-contradicts",
      "v2",
      "push-agrees",
      /pushed completed, then tasks\/get said working/,
      "#task-status-notifications",
    ],
    ["push-contradicts", "v1", "push-agrees", /pushed completed, then tasks\/get said working/, "#task-notifications"],
    ["time-order", "v2", "timestamps", /lastUpdatedAt .* is before createdAt/, "#tasks"],
    [
      "cancel-ended",
      "v1",
      "cancel-ended",
      /it ended completed; after tasks\/cancel it says cancelled/,
      "#task-cancellation",
    ],
    ["cancel-ended", "v2", "cancel-ended", /it ended completed; after tasks\/cancel it says cancelled/, "#task-status"],
    ["list-missing", "v1", "tasks-list", /tasks\/list \(1 page\(s\)\) does not/, "#task-listing"],
  ] as const)("hostile %s (%s) fails %s", async (hostileCase, generation, rule, detail, section) => {
    const server = await startHostileHttp(hostileCase, generation);
    servers.push(server);
    // Each case's one tool is picked (no --tool); its task made to last 0.5 s (not 1.5 s: what it breaks does not
    // hang on it), but the liar's: its lie is told on a tasks/get while it works, which must come before its end.
    // The liar's task lasts 10 s: its first tasks/get must come while it works, and on V2 the checks after its
    // believed end must meet it running, whatever the machine's pace (at 1.5 s a loaded machine reached them after
    // its real end, and they passed; on V1 its first read came after it, and no lie was told).
    const liar = { seconds: 10 };
    const all = await check(server.url, undefined, hostileCase === "push-contradicts" ? liar : { seconds: 0.5 });
    const failed = all.filter((r) => r.status === "fail");
    // On V2 a pushed end that carries its result ends the watch (watch.ts), so the lie is believed, and the checks
    // after it that read the task meet it as an ended task that is running again.
    const also = hostileCase === "push-contradicts" && generation === "v2" ? ["task-final", "cancel-ended"] : [];
    expect(failed.map((r) => r.name).sort(), failures(all).join("\n")).toEqual([rule, ...also].sort());
    const broken = failed.find((r) => r.name === rule)!;
    expect(broken.detail).toMatch(detail);
    expect(broken.spec).toMatch(new RegExp(`^${generation === "v1" ? "2025-11-25" : "2026-07-28"} .*${section}$`));
  });

  it("a reused task id fails task-ids-unique; input_required with nothing to answer fails input-question", async () => {
    const reused = await startHostileHttp("reused-id", "v2");
    servers.push(reused);
    const ids = byName(await check(reused.url, "slow", { seconds: 0.5 }));
    expect(ids["task-ids-unique"]!).toMatchObject({ status: "fail", detail: "two calls, one id: reused-task-id" });
    const empty = await startHostileHttp("empty-input-requests", "v2");
    servers.push(empty);
    const asked = byName(await check(empty.url, "ask"));
    expect(asked["task-ends"]!.status).toBe("skip");
    expect(asked["input-question"]!).toMatchObject({
      status: "fail",
      spec: "2026-07-28 io.modelcontextprotocol/tasks#task-polling",
    });
  });

  it("over stdio (V2) the extension gating is checked too; Mcp-Name routing, an HTTP rule, is skipped", async () => {
    const run = await runInProcess(
      ["check", "--stdio", v2Stdio(), "--tool", "task_complete", "--args", '{"ms":800}', "--json"],
      { home: tempHome() },
    );
    expect(run.code, run.stderr).toBe(0);
    const checks = byName(JSON.parse(run.stdout).checks);
    expect(checks["extension-required"]!.status, checks["extension-required"]!.detail).toBe("pass");
    expect(checks["mcp-name-routing"]!).toMatchObject({ status: "skip", detail: "not over HTTP: no Mcp-Name header" });
  });

  it("the JUnit report has a case per check, a failure for each failed one, and escapes server text", () => {
    const xml = junitReport("http://x/<mcp>", [
      { name: "a", title: "ok", status: "pass", detail: "fine", ms: 5 },
      { name: "b", title: "bad", status: "fail", detail: 'said "<done>" & \u001b[31mred\u0007', ms: 10 },
      { name: "d", title: "gated", spec: "2026-07-28 x#<y>", status: "fail", detail: "answered", ms: 1 },
      { name: "c", title: "later", status: "skip", detail: "no task", ms: 0 },
    ]);
    expect(xml).toContain(
      '<testsuite name="mcp-task check http://x/&lt;mcp&gt;" tests="4" failures="2" errors="0" skipped="1"',
    );
    expect(xml).toContain('<property name="spec" value="2026-07-28 x#&lt;y&gt;"/>');
    expect(xml).toContain('<failure message="answered (spec: 2026-07-28 x#&lt;y&gt;)"/>');
    expect(xml).toContain('<failure message="said &quot;&lt;done&gt;&quot; &amp; red"/>');
    expect(xml).toContain('<skipped message="no task"/>');
    expect(xml).not.toMatch(/[\u0000-\u0008\u001b]/);
  });

  it("the JUnit report carries no terminal controls: C1, CSI, bidi and CR are taken out before XML escaping", async () => {
    const xml = junitReport("srv\u202e", [
      { name: "a\u009b2J", title: "t\u0090x\u009c", status: "warn", detail: "one\r\u009b2Jtwo\u202eevil\u202c", ms: 1 },
      { name: "b", title: "bad", status: "fail", detail: "x\u001b[2Jy\u0090z\u009c\r", ms: 1 },
    ]);
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(xml).toContain("<system-out>warn: onetwoevil</system-out>");
    expect(xml).toContain('<failure message="xy"/>');
    // End to end: a server whose every text carries escapes.
    const junit = join(mkdtempSync(join(tmpdir(), "mcp-task-check-")), "escapes.xml");
    const hostile = `node ${join(ROOT, "dist/test-servers/hostile-server.js")} --case escapes --generation v2 --stdio`;
    await runInProcess(["check", "--stdio", hostile, "--junit", junit], { home: tempHome() });
    const report = readFileSync(junit, "utf8");
    expect(report).toMatch(/<testsuite [^>]*tests="20"/);
    expect(report).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });
});
