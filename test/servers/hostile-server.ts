// A hostile, misbehaving MCP server for test/hostile/server.test.ts: raw JSON-RPC (no SDK) that does the handshake of the
// generation it pretends to be (V1: `initialize`, V2: `server/discover`) and then breaks the protocol on purpose,
// one way per `--case`.
//
//   node dist/test-servers/hostile-server.js --case <name> [--generation v1|v2] (--stdio | --port 0) [--mb N] [--flood N]
//     [--drop-first METHOD,...]   (HTTP, any case: the connection of the first request of each method closes unanswered)
//
// In HTTP mode (Streamable HTTP on 127.0.0.1, endpoint /mcp) the only stdout output is one line,
// `listening http://127.0.0.1:PORT/mcp`, once ready. Every POSTed request is answered on an SSE stream of its own,
// so that notifications and server-to-client requests can come before the reply (or instead of it).
//
// Cases (tools named after what they do):
//   missing-fields            broken_create: the create reply has no taskId/status; broken_get: tasks/get lacks status
//   unknown-status            odd: tasks/get says "paused"; pushes with unknown statuses too
//   task-reply-to-list        tools/list is answered with a task
//   task-reply-to-plain-call  every tools/call is answered with a task, even one made without task augmentation
//   task-reply-where-forbidden (V1) plain: listed taskSupport "forbidden", answers with a task all the same
//   output-schema-breach      report: completes with structuredContent that breaks its outputSchema
//   update-ignored            (V2) ask: input_required for key "confirm"; tasks/update is acknowledged and ignored
//   endless-input             ask: a new question after every answer, forever (V2 keys q1, q2...; V1 elicitations)
//   notification-flood        work: tens of thousands of notifications before each reply; completes after ~1.5 s
//   reply-never-comes         hang_call: tools/call never answered; hang_get: tasks/get (and tasks/result) never answered;
//                             hang_result: tasks/get says completed at once, tasks/result (V1) never answers
//   handshake-never-comes     nothing is ever answered
//   huge-reply                huge {mb}: a plain result of `mb` MB; huge_task {mb}: a task whose result is that big
//   escapes                   ESC/CSI/OSC 52/BEL/C1/bidi in tool names, descriptions, task ids, status messages,
//                             results, error messages and questions: evil, evil_fail, evil_ask, evil_rpc;
//                             forged_ask, forged_page: question text with lines that look like mcp-task's own
//   unsafe-ids                unsafe {n}: a task whose id (UNSAFE_IDS[n], else the next one) attacks paths and shells;
//                             it works for 1 s, then asks for input (V2 key "confirm"), and completes once answered
//   poll-zero                 zero {seconds}: pollInterval 0; negative {seconds}: pollInterval -1000 (completes after `seconds`, default 5)
//   poll-huge                 huge_poll {seconds}: pollInterval 1e12 (past a timer's 2^31-1 ms); completes after `seconds` (default 3)
//   poll-flip                 flip {seconds}: a 1000-character id; every tasks/get flips pollInterval 200/300 and sends a new
//                             4000-character status message; completes after `seconds` (default 6)
//   get-other-id              other: tasks/get (and tasks/result) answer with another task, which works forever
//   completed-with-error      bad_done: completed, with an error for a result (V1: tasks/result answers a JSON-RPC error;
//                             V2: tasks/get has `error` and no `result`)
//   completed-no-result       no_result: completed without a result (V2: no `result`; V1: tasks/result answers {})
//   born-ended                born: the call's reply says completed (without a result), every read says working
//   ping-flood                flooded: --count (default 100,000) ping requests on the call's stream, then its result
//   array-result              go: the call is answered with "result": [] (no JSON-RPC response: not an object)
//   broken-schema             go: an inputSchema AJV cannot compile (a property named by a lone surrogate)
//   reused-id                 slow {n}: every task gets the id "reused-task-id" (a new call replaces the old task); 2 s
//   huge-id                   huge_id {kb}: a task whose id is `kb` KiB (default 200); completes after 1 s
//   bad-timing                negative_ttl, absurd_ttl (2^53-1), future (createdAt in year 9999, ttl 1 s), garbage_time
//                             (createdAt/lastUpdatedAt 10 KB of text); each completes after `seconds` (default 0.5);
//                             past_ttl: ttl 1 s, and it keeps working for an hour
// Process and stream cases (test/hostile/process.test.ts; tools `plain`, answered at once, and `hang`, never; with
// --pid-dir DIR each process of the server writes DIR/<role>-<pid>):
//   stdout-closed             stdio: closes its stdout on tools/call and keeps running (ignores the end of its input)
//   ignore-sigterm            stdio: ignores SIGTERM and the end of its input
//   grandchild                stdio: starts a grandchild that holds its stdout and stderr and ignores SIGTERM
//   stray-json                stdio: writes 42, "x", [], null, {} and a line of garbage before every message
//   huge-line                 stdio: answers tools/list with one line of --mb MB (default 40)
//   many-tools                lists plain, a tool named by 200,000 characters, and --count (default 100,000) tools
//                             of 190-character names (about 20 MB)
//   sse-retry-zero            HTTP: every SSE stream says `retry: 0`; each GET stream ends at once, without an event (its
//                             arrival logged on stderr, `GET <n> at <ms>`, ms of the server's monotonic clock);
//                             tools/call is answered after 3 s
//   blank-sse-gzip            HTTP: tools/call gets a gzip SSE stream of blank lines that never ends
//   huge-error-body           HTTP: tools/call gets a 500 with a body of --mb MB (escape sequences included)
//   redirect-same-origin      HTTP: POST /mcp is redirected (302) to /moved on the same server, which serves
//   redirect-cross-origin     HTTP: POST /mcp is redirected (307) to http://localhost:<port>/mcp
//   unauthorized / forbidden  HTTP: every POST gets 401 / 403
//   huge-question             (V2) ask: a task whose question is --mb MB long
// With --tls-key FILE --tls-cert FILE the HTTP server speaks HTTPS with that certificate; with --mute it answers nothing.
//   redos-output              redos: completes with structuredContent {code: "aaaa…ab"} against outputSchema pattern ^(a+)+$
//   redos-input               redos_in: inputSchema {code: pattern ^(a+)+$}; redos_ask: asks a form with that pattern
//   deep-schema               deep_out / deep_in: an outputSchema / inputSchema nested {depth} levels (default 20000)
//   deep-form                 deep_ask: asks a question whose requestedSchema nests {depth} levels;
//                             deep_result: completes with structuredContent nested that deep (no outputSchema)
//                             (V1, these and the other schema cases: a question the client refuses fails the task)
//   wide-form                 wide_ask: asks a form of {fields} fields (default 10000)
//   proto-key                 (V2) ask: input_required for key "__proto__"; completes once it is answered
//   empty-input-requests      (V2) ask: input_required with inputRequests {} (nothing to answer), for ever
//   proto-field               ask: a form with fields __proto__, constructor, prototype; the result echoes the answer;
//                             echo: a plain call whose result is its arguments as JSON
//   empty-id                  report: a task whose id is "" (the empty string); it completes after 300 ms
//   form-defaults             defaults_ask: asks a form whose fields have defaults (name "Ada", count 3, level "high",
//                             loud true); the result echoes the answer
//   param-headers             (V2, HTTP) headers: arguments region (x-mcp-header Region), count (Count, integer), loud
//                             (Loud, boolean), note (none); a plain call whose result is the Mcp-Param-* headers it got;
//                             bad_header: declares x-mcp-header on a number property (the client must leave it out)
//   echo-secrets              echo_auth: a task whose status message, on every read, and result (text holding JSON, and
//                             structuredContent) echo the Authorization and X-Api-Key headers of the request that reads it;
//                             it completes after 600 ms; echo_fail: the same, failed, its error naming them; over
//                             stdio, its ECHO_VALUE variable in place of Authorization
// Cases for `mcp-task check` (test/commands/check.test.ts), each breaking one rule and keeping the others `check` meets: tasks/*
// without the tasks extension declared are refused (-32021), a V2 HTTP request whose Mcp-Name is not its taskId is
// refused (-32020), cancelling an ended task changes nothing; except where the case breaks that rule:
//   ungated                   (V2) quick: a task of 1.5 s; tasks/* are answered without the extension declared
//   misrouted                 (V2, HTTP) quick: tasks/* are answered whatever their Mcp-Name header says
//   push-contradicts          liar: each tasks/get of the working task pushes "completed" first (and says working)
//   time-order                skewed: lastUpdatedAt an hour before createdAt
//   cancel-ended              quick: tasks/cancel makes an ended task cancelled
//   list-missing              (V1) quick: tasks/list never lists a task, and answers any cursor (the others: -32602)
// Cases for `list --remote` (V1 tasks/list):
//   endless-list              every page of tasks/list holds --page (default 500) new tasks and a new cursor, for ever
//   looping-list              tasks/list's pages loop: no cursor -> page a (cursor "b"), "b" -> page b (cursor "a"),
//                             "a" -> page a again...

import { spawn as spawnChild } from "node:child_process";
import { closeSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGzip } from "node:zlib";
import { UNSAFE_IDS } from "../helpers/unsafe-ids.js";

type Msg = Record<string, any>;
type Generation = "v1" | "v2";

const args = process.argv.slice(2);
const flag = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const CASE = flag("--case") ?? "";
const GEN = (flag("--generation") ?? "v2") as Generation;
const MB = Number(flag("--mb") ?? "40");
const FLOOD = Number(flag("--flood") ?? "30000");
const DROP_FIRST = new Set((flag("--drop-first") ?? "").split(",").filter(Boolean));
const DEPTH = Number(flag("--depth") ?? "20000");
const FIELDS = Number(flag("--fields") ?? "10000");
const COUNT = Number(flag("--count") ?? "100000");
const LIST_PAGE = Number(flag("--page") ?? "500");
const POLL_MS = 100;
const TTL_MS = 300_000;
const log = (line: string) => process.stderr.write(`[hostile ${CASE} ${GEN}] ${line}\n`);

const CASES = [
  "missing-fields",
  "unknown-status",
  "task-reply-to-list",
  "task-reply-to-plain-call",
  "task-reply-where-forbidden",
  "output-schema-breach",
  "update-ignored",
  "endless-input",
  "notification-flood",
  "reply-never-comes",
  "handshake-never-comes",
  "huge-reply",
  "escapes",
  "unsafe-ids",
  "poll-zero",
  "poll-huge",
  "poll-flip",
  "get-other-id",
  "completed-with-error",
  "completed-no-result",
  "born-ended",
  "ping-flood",
  "array-result",
  "broken-schema",
  "reused-id",
  "huge-id",
  "bad-timing",
  "redos-output",
  "redos-input",
  "deep-schema",
  "deep-form",
  "wide-form",
  "proto-key",
  "empty-input-requests",
  "proto-field",
  "empty-id",
  "form-defaults",
  "param-headers",
  "echo-secrets",
  "ungated",
  "misrouted",
  "push-contradicts",
  "time-order",
  "cancel-ended",
  "list-missing",
  "endless-list",
  "looping-list",
  // process and stream cases (PROCESS_CASES: every case from here on)
  "stdout-closed",
  "ignore-sigterm",
  "grandchild",
  "stray-json",
  "huge-line",
  "sse-retry-zero",
  "blank-sse-gzip",
  "huge-error-body",
  "redirect-same-origin",
  "redirect-cross-origin",
  "unauthorized",
  "forbidden",
  "huge-question",
  "many-tools",
];
if (!CASES.includes(CASE) || (GEN !== "v1" && GEN !== "v2")) {
  process.stderr.write(`hostile-server: unknown --case ${CASE} or --generation ${GEN}; cases: ${CASES.join(", ")}\n`);
  process.exit(2);
}

// Everything a terminal must never receive from a server.
const EVIL =
  "\u001b[31mred\u001b[0m \u001b]52;c;cm0gLXJmIH4K\u0007 \u001b]0;owned\u001b\\ \u0007bell \u009b2J \u0090dcs\u009c \u202egnp.exe\u202c \u0008\u0008\rX";
const EVIL_ID = `task-\u001b[2J\u001b]52;c;aWQ=\u0007\u009b1m\u202e-${Date.now()}`;

let unsafeNext = 0;

// ---- schemas that attack (redos-*, deep-schema, wide-form, proto-*) ----
const REDOS = "^(a+)+$";
const REDOS_TEXT = `${"a".repeat(40)}b`;
// A schema too deep for JSON.stringify (ours too): sent as raw JSON text in place of DEEP_MARK (see encode).
const DEEP_MARK = "\u0000deep-schema\u0000";
const DEEP_JSON = '{"type":"object","properties":{"a":'.repeat(DEPTH) + '{"type":"string"}' + "}}".repeat(DEPTH);
const encode = (message: Msg) => JSON.stringify(message).replaceAll(JSON.stringify(DEEP_MARK), DEEP_JSON);
/** A form with fields named as Object.prototype's own keys, parsed so that they are own properties. */
const protoForm = () => ({
  method: "elicitation/create",
  params: JSON.parse(
    `{"mode":"form","message":"fields named like prototype keys","requestedSchema":{"type":"object","properties":{"__proto__":{"type":"string","title":"proto"},"constructor":{"type":"boolean"},"prototype":{"type":"string"}},"required":["__proto__","constructor"]}}`,
  ),
});
const defaultsForm = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "accept the defaults?",
    requestedSchema: {
      type: "object",
      properties: {
        name: { type: "string", default: "Ada" },
        count: { type: "integer", default: 3 },
        level: { type: "string", enum: ["low", "high"], default: "high" },
        loud: { type: "boolean", default: true },
        note: { type: "string" },
      },
    },
  },
};
function schemaCaseForm(tool: string): Msg | undefined {
  if (tool === "redos_ask") {
    return {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: "code?",
        requestedSchema: {
          type: "object",
          properties: { code: { type: "string", pattern: REDOS } },
          required: ["code"],
        },
      },
    };
  }
  if (tool === "deep_ask")
    return { method: "elicitation/create", params: { mode: "form", message: "deep", requestedSchema: DEEP_MARK } };
  if (tool === "wide_ask") {
    const properties: Msg = {};
    for (let i = 0; i < FIELDS; i++) properties[`f${i}`] = { type: "string", title: `field ${i}` };
    return {
      method: "elicitation/create",
      params: { mode: "form", message: `${FIELDS} fields`, requestedSchema: { type: "object", properties } },
    };
  }
  if (CASE === "proto-field" && tool === "ask") return protoForm();
  if (tool === "defaults_ask") return defaultsForm;
  if (tool === "forged_ask") return forgedForm;
  if (tool === "forged_page") return forgedPage;
  return undefined;
}

// ---- questions whose text holds lines that look like mcp-task's own (escapes: forged_ask, forged_page) ----
// No real server lets a client choose a form's title, field titles and descriptions, or a URL request's message:
// these come from a server written to forge them. (A message with such lines: the SDK v1 server's `confirm {item}`.)
const FORGED =
  "\nmcp-task: error: forged by the server\nhint: mcp-task forged\nError: forged\u2028mcp-task: forged too";
const forgedForm: Msg = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: `Approve the deploy?${FORGED}`,
    requestedSchema: {
      type: "object",
      title: `Deploy${FORGED}`,
      properties: {
        ok: { type: "boolean", title: `Approve${FORGED}`, description: `Say yes to deploy.${FORGED}` },
        env: { type: "string", enum: ["prod", "dev"], enumNames: [`Production${FORGED}`, "Dev"], title: "Where" },
      },
      required: ["ok", "env"],
    },
  },
};
const forgedPage: Msg = {
  method: "elicitation/create",
  params: {
    mode: "url",
    message: `Sign in first.${FORGED}`,
    url: "https://pages.example/sign-in",
    elicitationId: "p1",
  },
};

// ---- the wire: send a message in the context of a request (HTTP: its SSE stream; stdio: stdout) ----

interface Out {
  send(message: Msg): void;
  /** True once the peer is gone (HTTP: the stream closed). */
  closed(): boolean;
}

const pendingAsks = new Map<string, (reply: Msg) => void>();
let askCounter = 0;

/** A server-to-client request (V1 elicitation) on the stream of `out`; resolves with the client's reply. */
function ask(out: Out, method: string, params: Msg): Promise<Msg> {
  const id = `h-${++askCounter}`;
  return new Promise((resolve) => {
    pendingAsks.set(id, resolve);
    out.send({ jsonrpc: "2.0", id, method, params });
  });
}

const now = () => new Date().toISOString();
const reply = (out: Out, id: unknown, result: Msg) => out.send({ jsonrpc: "2.0", id, result });
const fail = (out: Out, id: unknown, code: number, message: string, data?: unknown) =>
  out.send({ jsonrpc: "2.0", id, error: { code, message, ...(data !== undefined ? { data } : {}) } });

// ---- tasks ----

interface Task {
  taskId: string;
  tool: string;
  status: string;
  statusMessage?: string;
  createdAt: string;
  started: number;
  result?: Msg;
  error?: { code: number; message: string };
  /** V2: the open question's key; V1: rounds asked. */
  round: number;
  /** The timing sent with the task (default POLL_MS / TTL_MS), and when it ends (timing cases). */
  poll?: number;
  ttl?: number;
  lastUpdatedAt?: string;
  endsAfterMs?: number;
  /** tasks/get reads of it so far (timing cases: told in the result). */
  reads?: number;
}

const tasks = new Map<string, Task>();
let taskCounter = 0;

function newTask(tool: string, status = "working", id?: string): Task {
  const task: Task = {
    taskId: id ?? `t${++taskCounter}-${Math.random().toString(36).slice(2, 10)}`,
    tool,
    status,
    createdAt: now(),
    started: Date.now(),
    round: 1,
  };
  tasks.set(task.taskId, task);
  return task;
}

function wireTask(task: Task): Msg {
  const base: Msg = {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt ?? now(),
  };
  if (task.statusMessage !== undefined) base.statusMessage = task.statusMessage;
  const [poll, ttl] = [task.poll ?? POLL_MS, task.ttl ?? TTL_MS];
  return GEN === "v1" ? { ...base, ttl, pollInterval: poll } : { ...base, ttlMs: ttl, pollIntervalMs: poll };
}

const createReply = (task: Task): Msg =>
  GEN === "v1" ? { task: wireTask(task) } : { resultType: "task", ...wireTask(task) };
const text = (value: string, extra: Msg = {}): Msg => ({ content: [{ type: "text", text: value }], ...extra });
const bigText = (mb: number) => "x".repeat(Math.round(mb * 1024 * 1024));

const confirmForm = (message: string, key = "ok") => ({
  method: "elicitation/create",
  params: {
    mode: "form",
    message,
    requestedSchema: { type: "object", properties: { [key]: { type: "boolean" } }, required: [key] },
  },
});

/** Moves a task along with time: what each tool does once it runs. */
function advance(task: Task): void {
  if (["completed", "failed", "cancelled"].includes(task.status)) return;
  const age = Date.now() - task.started;
  switch (task.tool) {
    case "report":
      if (age > 300) {
        task.status = "completed";
        task.result = text('{"total":"many"}', { structuredContent: { total: "many" } });
      }
      break;
    case "work":
      if (age > 1500) {
        task.status = "completed";
        task.result = text("survived the flood");
      } else task.statusMessage = "working through the flood";
      break;
    case "redos":
      if (age > 200) {
        task.status = "completed";
        task.result = text(REDOS_TEXT, { structuredContent: { code: REDOS_TEXT } });
      }
      break;
    case "deep_result":
      if (age > 200) {
        task.status = "completed";
        task.result = text("deep", { structuredContent: { deep: DEEP_MARK } });
      }
      break;
    case "deep_out":
      if (age > 200) {
        task.status = "completed";
        task.result = text("done", { structuredContent: { a: "x" } });
      }
      break;
    case "hang_result":
      task.status = "completed";
      task.result = text("the result");
      break;
    case "huge_task":
      if (age > 300) {
        task.status = "completed";
        task.result = text(bigText(MB));
      }
      break;
    case "evil":
      task.statusMessage = `step ${Math.min(3, Math.floor(age / 150))} ${EVIL}`;
      if (age > 600) {
        task.status = "completed";
        task.result = text(`result ${EVIL}\nsecond line ${EVIL}`);
      }
      break;
    case "evil_fail":
      task.statusMessage = EVIL;
      if (age > 300) {
        task.status = "failed";
        task.error = { code: -32000, message: `it broke ${EVIL}` };
        if (GEN === "v1") task.result = text(`tool error ${EVIL}`, { isError: true });
      }
      break;
    case "ask":
    case "evil_ask":
    case "redos_ask":
    case "deep_ask":
    case "wide_ask":
    case "defaults_ask":
    case "forged_ask":
    case "forged_page":
      if (task.status === "working" && age > 200) task.status = "input_required";
      break;
    case "echo_auth":
    case "echo_fail": {
      const seen = {
        // Over stdio (no headers): the ECHO_VALUE the server was started with.
        authorization: String(requestHeaders.authorization ?? process.env.ECHO_VALUE ?? "none"),
        apiKey: String(requestHeaders["x-api-key"] ?? "none"),
      };
      const said = `saw ${seen.authorization} and key ${seen.apiKey}`;
      if (age <= 600) task.statusMessage = said;
      else if (task.tool === "echo_fail") {
        task.status = "failed";
        task.statusMessage = said;
        task.error = { code: -32000, message: `refused ${said}` };
        task.result = text(`refused ${said}`, { isError: true });
      } else {
        task.status = "completed";
        task.result = text(JSON.stringify(seen), { structuredContent: seen });
      }
      break;
    }
    case "unsafe":
      if (task.status === "working" && age > 1000) task.status = "input_required";
      break;
  }
  if (task.endsAfterMs !== undefined && age > task.endsAfterMs && task.status === "working") {
    task.status = "completed";
    if (!["bad_done", "no_result"].includes(task.tool))
      task.result = text(`done after ${task.endsAfterMs} ms, ${task.reads ?? 0} reads`);
  }
}

/** The timing cases' tasks: their poll interval, ttl, times, id and length (from the call's arguments). */
function timedTask(tool: string, argsIn: Msg): Task {
  const seconds = typeof argsIn.seconds === "number" ? argsIn.seconds : undefined;
  const id =
    tool === "huge_id"
      ? `huge-${"i".repeat(Math.round((typeof argsIn.kb === "number" ? argsIn.kb : 200) * 1024))}`
      : tool === "flip"
        ? `flip-${"f".repeat(995)}-${++taskCounter}`
        : CASE === "reused-id"
          ? "reused-task-id"
          : undefined;
  const task = newTask(tool, "working", id);
  const defaults: Record<string, number> = {
    zero: 5,
    negative: 5,
    huge_poll: 3,
    flip: 6,
    slow: 2,
    huge_id: 1,
    other: 3600,
    bad_done: 0.3,
    no_result: 0.3,
    past_ttl: 3600,
    quick: 1.5,
    liar: 1.5,
    skewed: 1.5,
    future: 3600, // still running past its 1 s ttl, however soon a client learns of an end
  };
  task.endsAfterMs = (seconds ?? defaults[tool] ?? 0.5) * 1000;
  if (tool === "zero") task.poll = 0;
  if (tool === "negative") task.poll = -1000;
  if (tool === "huge_poll") task.poll = 1e12;
  if (tool === "negative_ttl") task.ttl = -5000;
  if (tool === "absurd_ttl") task.ttl = Number.MAX_SAFE_INTEGER;
  if (tool === "future") {
    task.createdAt = "9999-12-31T23:59:59.000Z";
    task.ttl = 1000;
  }
  if (tool === "past_ttl") task.ttl = 1000; // and it works on, for an hour, past its ttl
  if (tool === "skewed") task.lastUpdatedAt = new Date(Date.now() - 3_600_000).toISOString();
  if (tool === "garbage_time") task.createdAt = task.lastUpdatedAt = `yesterday ${"z".repeat(10_000)}`;
  return task;
}

/** What the timing cases do on each tasks/get: flip the interval and the message, or answer with another task. */
function timedGet(task: Task): Task {
  if (CASE === "poll-flip" && task.status === "working") {
    task.poll = task.poll === 200 ? 300 : 200;
    task.statusMessage = `${Date.now()} ${"m".repeat(4000)}`;
  }
  if (CASE === "get-other-id") {
    const other = [...tasks.values()].find((t) => t.taskId !== task.taskId && t.tool === "decoy") ?? newTask("decoy");
    return other;
  }
  return task;
}

function v2Detailed(task: Task): Msg {
  const out: Msg = { ...wireTask(task), resultType: "complete" };
  if (task.status === "input_required") {
    const schemaForm = schemaCaseForm(task.tool);
    out.inputRequests =
      CASE === "proto-key"
        ? JSON.parse(`{"__proto__": ${JSON.stringify(confirmForm("proto key?"))}}`)
        : CASE === "empty-input-requests"
          ? {}
          : schemaForm
            ? { [`${task.tool}-q`]: schemaForm }
            : task.tool === "evil_ask"
              ? { [`k${EVIL}`]: confirmForm(`approve? ${EVIL}`) }
              : CASE === "endless-input"
                ? { [`q${task.round}`]: confirmForm(`question ${task.round}`) }
                : CASE === "huge-question"
                  ? { confirm: confirmForm(`confirm? ${EVIL} ${bigText(MB)}`) }
                  : { confirm: confirmForm("confirm?") };
  }
  if (task.status === "completed") out.result = task.result;
  if (task.status === "failed") out.error = task.error;
  return out;
}

// ---- the tools each case lists ----

function toolList(): Msg[] {
  const tool = (name: string, support: string, extra: Msg = {}) => ({
    name,
    description: `${name} (${CASE})`,
    inputSchema: { type: "object", properties: { mb: { type: "number" } } },
    ...(GEN === "v1" ? { execution: { taskSupport: support } } : {}),
    ...extra,
  });
  switch (CASE) {
    case "missing-fields":
      return [tool("broken_create", "required"), tool("broken_get", "required")];
    case "unknown-status":
      return [tool("odd", "required")];
    case "task-reply-to-list":
    case "task-reply-to-plain-call":
      return [tool("plain", "optional")];
    case "task-reply-where-forbidden":
      return [tool("plain", "forbidden")];
    case "output-schema-breach":
      return [
        tool("report", "required", {
          outputSchema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] },
        }),
      ];
    case "update-ignored":
    case "endless-input":
      return [tool("ask", "required")];
    case "born-ended":
      return [tool("born", "required")];
    case "ping-flood":
      return [tool("flooded", "optional")];
    case "array-result":
      return [tool("go", "optional")];
    case "broken-schema":
      return [
        tool("go", "optional", { inputSchema: { type: "object", properties: { "a\ud800": { type: "string" } } } }),
      ];
    case "notification-flood":
      return [tool("work", "required")];
    case "reply-never-comes":
      return [tool("hang_call", "optional"), tool("hang_get", "required"), tool("hang_result", "required")];
    case "huge-reply":
      return [tool("huge", "forbidden"), tool("huge_task", "required")];
    case "escapes":
      return [
        tool("evil", "required", { description: `evil tool ${EVIL}`, title: EVIL }),
        tool("evil_fail", "required"),
        tool("evil_ask", "required"),
        tool("evil_rpc", "optional"),
        tool("forged_ask", "required"),
        tool("forged_page", "required"),
        tool(`name${EVIL}`, "optional", { description: EVIL }),
      ];
    case "unsafe-ids":
      return [tool("unsafe", "required", { inputSchema: { type: "object", properties: { n: { type: "integer" } } } })];
    case "poll-zero":
    case "poll-huge":
    case "poll-flip":
    case "get-other-id":
    case "completed-with-error":
    case "completed-no-result":
    case "reused-id":
    case "huge-id":
    case "bad-timing":
    case "ungated":
    case "misrouted":
    case "push-contradicts":
    case "time-order":
    case "cancel-ended":
    case "list-missing": {
      const names: Record<string, string[]> = {
        "poll-zero": ["zero", "negative"],
        "poll-huge": ["huge_poll"],
        "poll-flip": ["flip"],
        "get-other-id": ["other"],
        "completed-with-error": ["bad_done"],
        "completed-no-result": ["no_result"],
        "reused-id": ["slow"],
        "huge-id": ["huge_id"],
        "bad-timing": ["negative_ttl", "absurd_ttl", "future", "garbage_time", "past_ttl"],
        ungated: ["quick"],
        misrouted: ["quick"],
        "push-contradicts": ["liar"],
        "time-order": ["skewed"],
        "cancel-ended": ["quick"],
        "list-missing": ["quick"],
      };
      const inputSchema = {
        type: "object",
        properties: { seconds: { type: "number" }, kb: { type: "number" }, n: { type: "integer" } },
      };
      return names[CASE].map((name) => tool(name, "required", { inputSchema }));
    }
    case "redos-output":
      return [
        tool("redos", "required", {
          outputSchema: { type: "object", properties: { code: { type: "string", pattern: REDOS } } },
        }),
      ];
    case "redos-input":
      return [
        tool("redos_in", "required", {
          inputSchema: { type: "object", properties: { code: { type: "string", pattern: REDOS } } },
        }),
        tool("redos_ask", "required"),
      ];
    case "deep-schema":
      return [
        tool("deep_out", "required", { outputSchema: DEEP_MARK }),
        tool("deep_in", "required", { inputSchema: DEEP_MARK }),
      ];
    case "deep-form":
      return [tool("deep_ask", "required"), tool("deep_result", "required")];
    case "wide-form":
      return [tool("wide_ask", "required")];
    case "proto-key":
    case "empty-input-requests":
      return [tool("ask", "required")];
    case "proto-field":
      return [tool("ask", "required"), tool("echo", "forbidden")];
    case "empty-id":
      return [tool("report", "required")];
    case "form-defaults":
      return [tool("defaults_ask", "required")];
    case "echo-secrets":
      return [tool("echo_auth", "required"), tool("echo_fail", "required")];
    case "param-headers":
      return [
        tool("headers", "forbidden", {
          inputSchema: {
            type: "object",
            properties: {
              region: { type: "string", "x-mcp-header": "Region" },
              count: { type: "integer", "x-mcp-header": "Count" },
              loud: { type: "boolean", "x-mcp-header": "Loud" },
              note: { type: "string" },
            },
          },
        }),
        tool("bad_header", "forbidden", {
          inputSchema: { type: "object", properties: { score: { type: "number", "x-mcp-header": "Score" } } },
        }),
      ];
  }
  if (CASE === "many-tools")
    return [
      tool("plain", "optional"),
      tool(`long${"x".repeat(200_000)}`, "optional"),
      ...Array.from({ length: COUNT }, (_, i) => tool(`${String(i).padStart(6, "0")}${"t".repeat(184)}`, "forbidden")),
    ];
  if (PROCESS_CASES.has(CASE)) return [tool("plain", "optional"), tool("hang", "optional")];
  return [];
}

function flood(out: Out, count: number, taskId?: string): void {
  for (let i = 0; i < count && !out.closed(); i++) {
    switch (i % 4) {
      case 0:
        out.send({
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "info", data: `flood ${i} ${EVIL}` },
        });
        break;
      case 1:
        out.send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: `nobody-${i}`, progress: i },
        });
        break;
      case 2:
        // A push for a task nobody knows, with a status nobody knows.
        out.send({
          jsonrpc: "2.0",
          method: GEN === "v1" ? "notifications/tasks/status" : "notifications/tasks",
          params: { taskId: `ghost-${i}`, status: "zombie" },
        });
        break;
      default: {
        const task = taskId ? tasks.get(taskId) : undefined;
        if (task)
          out.send({
            jsonrpc: "2.0",
            method: GEN === "v1" ? "notifications/tasks/status" : "notifications/tasks",
            params: wireTask(task),
          });
        else out.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "debug", data: i } });
      }
    }
  }
}

// ---- requests ----

async function handleRequest(msg: Msg, out: Out): Promise<void> {
  const { id, method } = msg;
  const params = (msg.params ?? {}) as Msg;
  if (CASE === "handshake-never-comes" || args.includes("--mute")) return;

  // Handshake of the generation this server pretends to be.
  if (method === "server/discover") {
    if (GEN === "v1") return fail(out, id, -32601, "Method not found");
    return reply(out, id, {
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {}, extensions: { "io.modelcontextprotocol/tasks": {} } },
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: {
        "io.modelcontextprotocol/serverInfo": {
          name: CASE === "escapes" ? `hostile${EVIL}` : "hostile",
          version: "0.0.1",
        },
      },
    });
  }
  if (method === "initialize") {
    if (GEN === "v2") return fail(out, id, -32601, "Method not found");
    return reply(out, id, {
      protocolVersion: "2025-11-25",
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      serverInfo: { name: CASE === "escapes" ? `hostile${EVIL}` : "hostile", version: "0.0.1" },
    });
  }
  if (method === "ping") return reply(out, id, {});

  if (method === "tools/list") {
    if (CASE === "huge-line") return hugeLine(id);
    if (CASE === "task-reply-to-list") return reply(out, id, createReply(newTask("tools/list")));
    return reply(out, id, {
      tools: toolList(),
      ...(GEN === "v2" ? { resultType: "complete", ttlMs: 0, cacheScope: "private" } : {}),
    });
  }

  if (method === "tools/call") return toolsCall(id, params, out);

  const refusal = method.startsWith("tasks/") ? checkCaseRefusal(params) : undefined;
  if (refusal) return fail(out, id, refusal.code, refusal.message);

  if (method === "tasks/get") {
    const task = tasks.get(params.taskId);
    if (CASE === "reply-never-comes" && task?.tool !== "hang_result") return; // never answered
    if (CASE === "notification-flood") flood(out, 2000, task?.taskId);
    if (!task) return fail(out, id, -32602, "Task not found");
    advance(task);
    if (CASE === "missing-fields") return reply(out, id, { taskId: task.taskId, createdAt: task.createdAt });
    if (CASE === "unknown-status")
      return reply(out, id, { ...(GEN === "v2" ? v2Detailed(task) : wireTask(task)), status: "paused" });
    if (task.endsAfterMs !== undefined) {
      task.reads = (task.reads ?? 0) + 1;
      const shown = timedGet(task);
      if (CASE === "push-contradicts" && shown.status === "working") {
        const pushed = { ...wireTask(shown), status: "completed", ...(GEN === "v2" ? { result: text("pushed") } : {}) };
        out.send({
          jsonrpc: "2.0",
          method: GEN === "v1" ? "notifications/tasks/status" : "notifications/tasks",
          params: pushed,
        });
      }
      if (GEN === "v1") return reply(out, id, wireTask(shown));
      const detailed = v2Detailed(shown);
      if (CASE === "completed-with-error" && shown.status === "completed")
        detailed.error = { code: -32000, message: "it broke after all" };
      return reply(out, id, detailed);
    }
    return reply(out, id, GEN === "v2" ? v2Detailed(task) : wireTask(task));
  }

  if (method === "tasks/result" && GEN === "v1") return tasksResult(id, params, out);

  if (method === "tasks/update" && GEN === "v2") {
    const task = tasks.get(params.taskId);
    if (!task) return fail(out, id, -32602, "Task not found");
    const responses = (params.inputResponses ?? {}) as Msg;
    // update-ignored: acknowledged, and nothing changes.
    if (CASE === "endless-input" && responses[`q${task.round}`] !== undefined) task.round++;
    if (CASE === "escapes" && task.status === "input_required") task.status = "completed";
    if (
      ["proto-key", "proto-field", "redos-input", "deep-form", "wide-form", "form-defaults"].includes(CASE) &&
      task.status === "input_required"
    ) {
      // The answers as they came (own keys, __proto__ included), echoed as the result.
      const answer = Object.values(responses)[0] as Msg | undefined;
      const keys = Object.keys(responses);
      if ((CASE !== "proto-key" || keys.includes("__proto__")) && answer) {
        task.status = "completed";
        task.result = text(JSON.stringify({ keys, answer }));
      }
    }
    if (CASE === "unsafe-ids" && task.status === "input_required") {
      task.status = "completed";
      task.result = text(`done ${task.taskId}`);
    }
    return reply(out, id, { resultType: "complete" });
  }

  if (method === "tasks/cancel") {
    const task = tasks.get(params.taskId);
    if (!task) return fail(out, id, -32602, "Task not found");
    if (
      CHECK_CASES.has(CASE) &&
      CASE !== "cancel-ended" &&
      ["completed", "failed", "cancelled"].includes(task.status)
    ) {
      if (GEN === "v1") return fail(out, id, -32602, `Task already ${task.status}`);
      return reply(out, id, { resultType: "complete" });
    }
    task.status = "cancelled";
    return reply(out, id, GEN === "v1" ? wireTask(task) : { resultType: "complete" });
  }

  if (method === "subscriptions/listen") {
    // Acknowledge and keep the stream open (pushes come with the flood).
    out.send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: params.notifications ?? {} },
    });
    return;
  }
  if (method === "tasks/list") {
    if (CASE === "endless-list" || CASE === "looping-list") return listPage(out, id, params.cursor);
    if (CHECK_CASES.has(CASE) && CASE !== "list-missing" && params.cursor !== undefined)
      return fail(out, id, -32602, "Invalid cursor");
    return reply(out, id, { tasks: CASE === "list-missing" ? [] : [...tasks.values()].map(wireTask) });
  }
  return fail(out, id, -32601, `Method not found: ${method}`);
}

/** The list cases' pages: endless (a new cursor each time) or looping (cursors "b", "a", "b"...). */
function listPage(out: Out, id: unknown, cursor: unknown): void {
  const at = typeof cursor === "string" ? cursor : "";
  const size = CASE === "endless-list" ? LIST_PAGE : 2;
  const page = CASE === "endless-list" ? Number(at.slice(1) || "0") : at === "b" ? 1 : 0;
  const listed = Array.from({ length: size }, (_, i) => ({
    taskId: `listed-${page}-${i}`,
    status: "working",
    createdAt: now(),
    lastUpdatedAt: now(),
    ttl: TTL_MS,
    pollInterval: POLL_MS,
  }));
  const nextCursor = CASE === "endless-list" ? `p${page + 1}` : at === "b" ? "a" : "b";
  reply(out, id, { tasks: listed, nextCursor });
}

/** The cases of `mcp-task check`: each keeps every rule but its own. */
const CHECK_CASES = new Set(["ungated", "misrouted", "push-contradicts", "time-order", "cancel-ended", "list-missing"]);

/** The check cases' refusal of a tasks/* request: no extension declared (-32021), or Mcp-Name not its taskId (-32020). */
function checkCaseRefusal(params: Msg): { code: number; message: string } | undefined {
  if (GEN !== "v2" || !CHECK_CASES.has(CASE)) return undefined;
  const declared =
    params._meta?.["io.modelcontextprotocol/clientCapabilities"]?.extensions?.["io.modelcontextprotocol/tasks"] !==
    undefined;
  if (CASE !== "ungated" && !declared) return { code: -32021, message: "Missing required client capability" };
  const name = requestHeaders["mcp-name"];
  if (CASE !== "misrouted" && httpPort !== 0 && typeof params.taskId === "string" && name !== params.taskId)
    return { code: -32020, message: `Mcp-Name ${String(name)} does not match params.taskId` };
  return undefined;
}

async function toolsCall(id: unknown, params: Msg, out: Out): Promise<void> {
  const name = String(params.name);
  const argsIn = (params.arguments ?? {}) as Msg;
  // V1: the client asked for a task with params.task; V2: it declared the extension in _meta.
  const wantsTask =
    GEN === "v1"
      ? params.task !== undefined
      : params._meta?.["io.modelcontextprotocol/clientCapabilities"]?.extensions?.["io.modelcontextprotocol/tasks"] !==
        undefined;
  const asTask = (tool: string, taskId?: string) => reply(out, id, createReply(newTask(tool, "working", taskId)));
  if (PROCESS_CASES.has(CASE)) return processCaseCall(id, name, out);
  switch (CASE) {
    case "missing-fields": {
      if (name === "broken_create") {
        const task = wireTask(newTask(name));
        delete task.taskId;
        delete task.status;
        return reply(out, id, GEN === "v1" ? { task } : { resultType: "task", ...task });
      }
      return asTask(name);
    }
    case "task-reply-to-plain-call":
    case "task-reply-where-forbidden":
      return asTask(name); // whether or not a task was asked for
    case "notification-flood": {
      const task = newTask(name);
      flood(out, FLOOD, task.taskId);
      return reply(out, id, createReply(task));
    }
    case "reply-never-comes":
      if (name === "hang_call") return; // never answered
      return asTask(name);
    case "huge-reply":
      if (name === "huge")
        return reply(out, id, {
          ...text(bigText(Number(argsIn.mb ?? MB))),
          ...(GEN === "v2" ? { resultType: "complete" } : {}),
        });
      return asTask(name);
    case "escapes":
      if (name === "evil_rpc") return fail(out, id, -32000, `refused ${EVIL}`, { why: EVIL });
      return asTask(name, name === "evil" ? `${EVIL_ID}-${++taskCounter}` : undefined);
    case "proto-field":
      if (name === "echo")
        return reply(out, id, {
          ...text(JSON.stringify({ keys: Object.keys(argsIn), args: argsIn })),
          ...(GEN === "v2" ? { resultType: "complete" } : {}),
        });
      return asTask(name);
    case "unsafe-ids":
      return asTask(name, UNSAFE_IDS[typeof argsIn.n === "number" ? argsIn.n : unsafeNext++ % UNSAFE_IDS.length]);
    case "poll-zero":
    case "poll-huge":
    case "poll-flip":
    case "get-other-id":
    case "completed-with-error":
    case "completed-no-result":
    case "reused-id":
    case "huge-id":
    case "bad-timing":
    case "ungated":
    case "misrouted":
    case "push-contradicts":
    case "time-order":
    case "cancel-ended":
    case "list-missing":
      return reply(out, id, createReply(timedTask(name, argsIn)));
    case "array-result":
      return reply(out, id, []);
    case "ping-flood": {
      for (let i = 0; i < COUNT && !out.closed(); i++) out.send({ jsonrpc: "2.0", id: `ping-${i}`, method: "ping" });
      return reply(out, id, { content: [{ type: "text", text: `after ${COUNT} pings` }] });
    }
    case "born-ended": {
      const task = newTask(name, "completed");
      const created = createReply(task);
      task.status = "working";
      return reply(out, id, created);
    }
    case "empty-id":
      return asTask(name, "");
    case "param-headers": {
      const mirrored = Object.entries(requestHeaders).filter(([key]) => key.startsWith("mcp-param-"));
      return reply(out, id, { ...text(JSON.stringify(Object.fromEntries(mirrored))), resultType: "complete" });
    }
    default:
      if (!wantsTask && GEN === "v2") return fail(out, id, -32021, "this tool needs the tasks extension");
      return asTask(name);
  }
}

/** V1 tasks/result: blocks until terminal, asking the task's questions on this request's stream. */
async function tasksResult(id: unknown, params: Msg, out: Out): Promise<void> {
  const task = tasks.get(params.taskId);
  if (!task) return fail(out, id, -32602, "Task not found");
  if (CASE === "reply-never-comes") return;
  if (task.endsAfterMs !== undefined) return timedResult(id, task, out);
  const related = { "io.modelcontextprotocol/related-task": { taskId: task.taskId } };
  for (;;) {
    if (out.closed()) return;
    advance(task);
    if (task.status === "completed") return reply(out, id, task.result ?? text(""));
    if (task.status === "failed") {
      if (task.result) return reply(out, id, task.result);
      return fail(out, id, task.error?.code ?? -32603, task.error?.message ?? "failed");
    }
    if (task.status === "cancelled") return fail(out, id, -32603, "cancelled");
    if (task.status === "input_required") {
      const form =
        task.tool === "evil_ask"
          ? confirmForm(`approve? ${EVIL}`)
          : (schemaCaseForm(task.tool) ?? confirmForm(`question ${task.round}`));
      const answer = await ask(out, "elicitation/create", { ...form.params, _meta: related });
      if (schemaCaseForm(task.tool)) {
        if (answer.error) {
          task.status = "failed";
          task.result = text(`the client refused the question: ${String(answer.error.message).slice(0, 200)}`, {
            isError: true,
          });
        } else {
          task.status = "completed";
          task.result = text(JSON.stringify({ answer: answer.result }));
        }
        continue;
      }
      if (answer.error) log(`elicitation refused: ${JSON.stringify(answer.error).slice(0, 200)}`);
      task.round++;
      if (task.tool === "unsafe") {
        task.status = "completed";
        task.result = text(`done ${task.taskId}`);
        continue;
      }
      // endless-input: there is always another question.
      if (CASE !== "endless-input") task.status = "working";
      continue;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** V1 tasks/result for the timing cases: waits for the end, then answers (or misanswers) with the outcome. */
async function timedResult(id: unknown, task: Task, out: Out): Promise<void> {
  for (;;) {
    if (out.closed()) return;
    advance(task);
    const shown = timedGet(task);
    if (shown.status === "completed") {
      if (CASE === "completed-with-error") return fail(out, id, -32000, "it broke after all");
      if (CASE === "completed-no-result") return reply(out, id, {});
      return reply(out, id, shown.result ?? text(""));
    }
    if (shown.status === "cancelled") return fail(out, id, -32603, "cancelled");
    await new Promise((r) => setTimeout(r, 50));
  }
}

// ---- transports ----

function handleInbound(message: Msg, out: Out): void {
  if (message.method === undefined && message.id !== undefined) {
    // A reply to one of our requests.
    const waiter = pendingAsks.get(String(message.id));
    pendingAsks.delete(String(message.id));
    waiter?.(message);
    return;
  }
  if (message.id === undefined) return; // a notification
  void handleRequest(message, out).catch((error) => log(`error: ${(error as Error).stack}`));
}

function serveStdio(): void {
  processCaseStart();
  const out: Out = {
    send: (message) => void process.stdout.write(`${CASE === "stray-json" ? STRAY : ""}${encode(message)}\n`),
    closed: () => false,
  };
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    try {
      handleInbound(JSON.parse(line), out);
    } catch (error) {
      log(`bad line: ${(error as Error).message}`);
    }
  });
  lines.on("close", () =>
    CASE === "stdout-closed" || CASE === "ignore-sigterm" ? log("input ended; running on") : process.exit(0),
  );
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** The headers of the POST being handled (param-headers echoes its Mcp-Param-*). */
let requestHeaders: IncomingMessage["headers"] = {};

async function serveHttp(port: number): Promise<void> {
  const server = serverFor((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (PROCESS_CASES.has(CASE) && processCaseHttp(req, res)) return;
      if (req.method !== "POST") {
        res.writeHead(405, { Allow: "POST" }).end();
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readBody(req));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Msg[];
      requestHeaders = req.headers;
      for (const m of messages) if (m.method !== undefined && m.id !== undefined) log(`received ${m.method}`);
      // --drop-first: the connection closed under the first request of each method named, unanswered, as a server
      // closing a kept-alive connection as idle does just as the client sends on it.
      const dropped = messages.find((m) => m.id !== undefined && DROP_FIRST.delete(String(m.method)));
      if (dropped) {
        log(`dropped ${dropped.method}`);
        req.socket.destroy();
        return;
      }
      if (PROCESS_CASES.has(CASE) && processCaseHttpCall(messages, res)) return;
      const requests = messages.filter((m) => m.method !== undefined && m.id !== undefined);
      if (requests.length === 0) {
        for (const m of messages) handleInbound(m, { send: () => {}, closed: () => true });
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
      res.flushHeaders();
      let open = true;
      res.on("close", () => (open = false));
      let unanswered = new Set(requests.map((m) => m.id));
      const out: Out = {
        send(message) {
          if (!open) return;
          res.write(`event: message\ndata: ${encode(message)}\n\n`);
          if (
            message.method === undefined &&
            unanswered.delete(message.id) &&
            unanswered.size === 0 &&
            requests[0].method !== "subscriptions/listen"
          ) {
            open = false;
            res.end();
          }
        },
        closed: () => !open,
      };
      for (const m of messages) handleInbound(m, out);
      unanswered = new Set(unanswered);
    })();
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: actual } = server.address() as AddressInfo;
  httpPort = actual;
  process.stdout.write(`listening ${flag("--tls-key") ? "https" : "http"}://127.0.0.1:${actual}/mcp\n`);
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 500).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

// ---- process and stream cases (test/hostile/process.test.ts) ----

const PROCESS_CASES = new Set(CASES.slice(CASES.indexOf("stdout-closed")));
const STRAY = '42\n"x"\n[]\nnull\n{}\n{"jsonrpc":"2.0"}\ngarbage {\n';
let httpPort = 0;
let requestsSeen = 0;

function writePid(role: string, pid: number): void {
  const dir = flag("--pid-dir");
  if (dir) writeFileSync(join(dir, `${role}-${pid}`), "");
}

function processCaseStart(): void {
  writePid("server", process.pid);
  if (CASE === "ignore-sigterm") {
    process.on("SIGTERM", () => log("SIGTERM ignored"));
    setInterval(() => {}, 1000);
  }
  if (CASE === "grandchild") {
    const child = spawnChild(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    if (child.pid) writePid("grandchild", child.pid);
  }
}

function processCaseCall(id: unknown, name: string, out: Out): void {
  if (CASE === "stdout-closed") {
    process.stdout.end();
    process.stdout.destroy();
    closeSync(1);
    log("stdout closed");
    setInterval(() => {}, 1000);
    return;
  }
  if (name === "hang") return;
  if (CASE === "huge-line") return hugeLine(id);
  if (CASE === "huge-question") return reply(out, id, createReply(newTask("ask")));
  reply(out, id, { ...text("plain result"), ...(GEN === "v2" ? { resultType: "complete" } : {}) });
}

/** An HTTP server, or an HTTPS one with --tls-key and --tls-cert. */
function serverFor(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const key = flag("--tls-key");
  const cert = flag("--tls-cert");
  return key && cert
    ? createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, handler)
    : createServer(handler);
}

/** One line of MB megabytes (a JSON-RPC reply that never ends within the limit), written as the pipe takes it. */
function hugeLine(id: unknown): void {
  const chunk = "x".repeat(1024 * 1024);
  let left = Math.round(MB);
  process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[],"pad":"`);
  const more = () => {
    while (left > 0) {
      left--;
      if (!process.stdout.write(chunk)) return void process.stdout.once("drain", more);
    }
    process.stdout.write('"}}\n');
  };
  more();
}

/** Before the body is read: redirects, refusals, and the GETs that reconnect an SSE stream. */
function processCaseHttp(req: IncomingMessage, res: ServerResponse): boolean {
  requestsSeen++;
  switch (CASE) {
    case "redirect-same-origin":
      if (req.url !== "/mcp") return false;
      res.writeHead(302, { Location: "/moved" }).end();
      return true;
    case "redirect-cross-origin":
      res.writeHead(307, { Location: `http://localhost:${httpPort}/mcp` }).end();
      return true;
    case "unauthorized":
      res
        .writeHead(401, { "WWW-Authenticate": 'Bearer realm="hostile"', "Content-Type": "text/plain" })
        .end("sign in first");
      return true;
    case "forbidden":
      res.writeHead(403, { "Content-Type": "text/plain" }).end("not for you");
      return true;
    case "sse-retry-zero":
      if (req.method !== "GET") return false;
      log(`GET ${requestsSeen} at ${Math.round(performance.now())}`); // when it came: the client's pace between GETs
      res.writeHead(200, { "Content-Type": "text/event-stream" }).end(`id: g${requestsSeen}\nretry: 0\n\n`);
      return true;
  }
  return false;
}

/** After the body is read: what tools/call gets in the stream cases. */
function processCaseHttpCall(messages: Msg[], res: ServerResponse): boolean {
  if (!messages.some((m) => m.method === "tools/call")) return false;
  switch (CASE) {
    case "sse-retry-zero": {
      // The answer comes after 3 s, on a stream that says `retry: 0`; meanwhile every GET stream ends at once.
      const call = messages.find((m) => m.method === "tools/call")!;
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write(`id: p${requestsSeen}\nretry: 0\n\n`);
      setTimeout(
        () =>
          res.end(
            `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: call.id, result: { ...text("late result"), ...(GEN === "v2" ? { resultType: "complete" } : {}) } })}\n\n`,
          ),
        3000,
      );
      return true;
    }
    case "blank-sse-gzip": {
      res.writeHead(200, { "Content-Type": "text/event-stream", "Content-Encoding": "gzip" });
      const gzip = createGzip();
      gzip.pipe(res);
      const blank = Buffer.alloc(1024 * 1024, 10);
      let open = true;
      res.on("close", () => ((open = false), gzip.destroy()));
      const more = () => {
        while (open) if (!gzip.write(blank)) return void gzip.once("drain", more);
      };
      more();
      return true;
    }
    case "huge-error-body":
      res.writeHead(500, { "Content-Type": "text/plain" }).end(`${EVIL} ${bigText(MB)}`);
      return true;
  }
  return false;
}

if (args.includes("--stdio")) serveStdio();
else void serveHttp(Number(flag("--port") ?? "0"));
