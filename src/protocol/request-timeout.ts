// How long one request to a server may go unanswered, as the environment sets it (the connect policy's input).
import { parseDuration } from "../duration.js";

/** MCP_TASK_REQUEST_TIMEOUT: how long one request to a server may go unanswered (default 60 s; 0: no limit). */
export function requestTimeoutMs(env: Record<string, string | undefined>): number | undefined {
  const value = env.MCP_TASK_REQUEST_TIMEOUT;
  return value ? parseDuration(value, "MCP_TASK_REQUEST_TIMEOUT") : undefined;
}
