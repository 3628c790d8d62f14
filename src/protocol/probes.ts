// Requests a well-behaved client never sends, so that `mcp-task check` can see a 2026-07-28 server refuse them: a
// tasks/* request without the tasks extension declared (-32021, older texts -32003), and over HTTP one whose Mcp-Name
// header names another task than its body's taskId (-32020, the header mismatch of SEP-2243).
import { RpcError } from "../errors.js";
import { randomUUID } from "../hash.js";
import type { RawRequestOptions } from "./rpc.js";
import type { ProbeAnswer, WireProbes } from "./wire.js";

/** The header a probe sets for http.ts to put in Mcp-Name's place (the SDK lets no request set Mcp-Name itself). */
export const PROBE_NAME_HEADER = "x-mcp-task-probe-name";
/** Missing extension declaration: -32021 (older texts: -32003). */
export const EXTENSION_REQUIRED: readonly number[] = [-32021, -32003];
const HEADER_MISMATCH = -32020;

type Send = (params: Record<string, unknown>, options: RawRequestOptions) => Promise<Record<string, unknown>>;

/** The probes of a V2 wire: `send` sends a tasks/get; `meta(tasks)` is the envelope, declaring the extension or not. */
export function v2Probes(send: Send, meta: (tasks: boolean) => Record<string, unknown>, http: boolean): WireProbes {
  return {
    undeclared: (taskId, signal) => answer(send({ taskId, _meta: meta(false) }, { signal }), EXTENSION_REQUIRED),
    misrouted: http
      ? (taskId, signal) =>
          answer(
            send(
              { taskId, _meta: meta(true) },
              { signal, headers: { [PROBE_NAME_HEADER]: `mcp-task-check-${randomUUID()}` } },
            ),
            [HEADER_MISMATCH],
          )
      : undefined,
  };
}

async function answer(reply: Promise<unknown>, expected: readonly number[]): Promise<ProbeAnswer> {
  try {
    await reply;
    return { refused: false };
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    return { refused: true, code: error.rpcCode, expected: expected.includes(error.rpcCode), message: error.message };
  }
}
