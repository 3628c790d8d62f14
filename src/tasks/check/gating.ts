// 2026-07-28 gating, as `mcp-task check` provokes it: a tasks/get without the tasks extension declared must be
// refused with -32021 (older texts: -32003), and over HTTP one whose Mcp-Name header names another task than its
// body must be refused (-32020). The wire sends what a client never would (WireProbes, src/protocol/probes.ts).
import type { ProbeAnswer } from "../../protocol/wire.js";
import { type Check, type Verdict } from "./types.js";

function judge(answer: ProbeAnswer, wanted: string): Verdict {
  if (!answer.refused) return ["fail", "it answered with the task"];
  if (answer.expected) return ["pass", `refused (${answer.code})`];
  return ["warn", `refused, but with ${answer.code} (${wanted} expected): ${answer.message ?? ""}`];
}

export const GATING_CHECKS: Check[] = [
  {
    name: "extension-required",
    title: "refuses tasks/* from a client that did not declare the tasks extension",
    spec: { "2026-07-28": "#protocol-errors" },
    async run(engine, options, learned) {
      if (!learned.task) return ["skip", "no task"];
      const undeclared = engine.wire.probes?.undeclared;
      if (!undeclared) return ["skip", "this connection cannot send the probe"];
      return judge(await undeclared(learned.task.taskId, options.signal), "-32021");
    },
  },
  {
    name: "mcp-name-routing",
    title: "refuses a tasks/* request whose Mcp-Name is not its taskId",
    spec: { "2026-07-28": "#streamable-http-routing-headers" },
    async run(engine, options, learned) {
      if (!learned.task) return ["skip", "no task"];
      const misrouted = engine.wire.probes?.misrouted;
      if (!misrouted) return ["skip", "not over HTTP: no Mcp-Name header"];
      return judge(await misrouted(learned.task.taskId, options.signal), "-32020");
    },
  },
];
