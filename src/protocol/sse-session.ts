// A legacy HTTP+SSE connection's wire (connect.ts makes one when a first contact is refused with 400/404/405 and the
// old transport answers): its session is the command's own event stream.
import type { Wire } from "./wire.js";

/** Why a legacy HTTP+SSE connection's tasks end with the command (WireCapabilities.confinedTasks). */
const SSE_SESSION_ENDS =
  "a legacy HTTP+SSE server's session is this command's own event stream, and its tasks end with it";

/**
 * A legacy HTTP+SSE connection: its session is its event stream, which no other process can take over, so nothing
 * started here can outlive the command, and its questions are this process's to answer. A tool whose taskSupport is
 * "required" is still called as a task (2025-11-25: a client must), followed inside the command on this session;
 * every other call is a plain call (a task would only be lost with the session). A handle saved of its task says
 * so to a later command (resume).
 */
export function sessionBound(wire: Wire): Wire {
  const call = wire.callTool.bind(wire);
  const list = wire.listTools.bind(wire);
  const token = wire.resumeToken.bind(wire);
  let required: ReadonlySet<string> | undefined;
  wire.listTools = async () => {
    const tools = await list();
    required = new Set(tools.filter((tool) => tool.taskSupport === "required").map((tool) => tool.name));
    return tools;
  };
  wire.callTool = async (name, args, options) => {
    if (!required) await wire.listTools();
    const task = options.task === "auto" && required!.has(name) ? "auto" : "never";
    return call(name, args, { ...options, task });
  };
  wire.resumeToken = () => ({ ...token(), sessionBound: true });
  // Its questions are this process's to answer, and its tasks end with it (the wire's own record, amended).
  const capabilities = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(wire), "capabilities")!.get!;
  Object.defineProperty(wire, "capabilities", {
    get: () => ({ ...capabilities.call(wire), handsQuestionsOnce: false, confinedTasks: SSE_SESSION_ENDS }),
  });
  return wire;
}
