// The broker's hello: what a command learns of the broker's wire as it attaches (requests.ts answers it, wire.ts
// reads it). Its fields stay flat as older builds sent and read them.
import { revisionOf } from "../protocol/revisions.js";
import type { Generation, QuestionHolder, ResumeToken, Wire, WireCapabilities } from "../protocol/wire.js";
import { MAX_HOLDER_COMMAND_CHARS } from "../limits.js";

export interface Hello {
  generation: Generation;
  protocolVersion: string;
  serverName: string;
  canListTasks: boolean;
  resume: ResumeToken;
  serverPid?: number;
  handsQuestionsOnce?: boolean;
  hearsElicitationComplete?: boolean;
}

/**
 * What a command says of itself as it attaches (its hello's params): that it puts stubs of questions back
 * (sent-questions.ts), and who it is, shown to the other commands following a task whose question it holds
 * (InputRequest.heldBy). Each field absent from an older build: unknown.
 */
export interface Attaching {
  sentQuestions?: boolean;
  pid?: number;
  command?: string;
}

/** Who a command is, from what it said as it attached: what it said that makes sense, the command line cut. */
export function holderOf(said: Record<string, unknown>): QuestionHolder {
  const { pid, command } = said;
  return {
    ...(typeof pid === "number" && Number.isSafeInteger(pid) && pid > 0 && { pid }),
    ...(typeof command === "string" && command !== "" && { command: command.slice(0, MAX_HOLDER_COMMAND_CHARS) }),
  };
}

/** The hello the broker sends of its wire. */
export function helloOf(wire: Wire): Hello {
  const { generation, protocolVersion, serverName, canListTasks, handsQuestionsOnce, hearsElicitationComplete } =
    wire.capabilities;
  const resume = wire.resumeToken();
  return {
    generation,
    protocolVersion,
    serverName,
    canListTasks,
    resume,
    serverPid: wire.serverPid,
    handsQuestionsOnce,
    hearsElicitationComplete,
  };
}

/** The capabilities of a wire behind the broker that said `hello`. */
export function capabilitiesOf(hello: Hello): WireCapabilities {
  return {
    generation: hello.generation,
    revision: revisionOf(hello.generation),
    protocolVersion: hello.protocolVersion,
    serverName: hello.serverName,
    canListTasks: hello.canListTasks,
    handsQuestionsOnce: hello.handsQuestionsOnce === true,
    // A call a command abandons is heard out by the broker, which saves its task (BrokerWire.callTool).
    keepsAbandonedCalls: true,
    // Absent (a 2025-11-25 wire of an older build): it can.
    hearsElicitationComplete: hello.hearsElicitationComplete !== false,
  };
}
