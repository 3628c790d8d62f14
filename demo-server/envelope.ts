// The 2026-07-28 per-request `_meta` envelope, as the V2 side of the demo reads it.

import { MissingRequiredClientCapabilityError } from "@modelcontextprotocol/server";
import type { ServerContext } from "@modelcontextprotocol/server";
import type { JsonObject } from "./task.js";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
export const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
export const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
export const MODERN_VERSION = "2026-07-28";

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v);

/** The client capabilities the request declared in its envelope. */
export function clientCapabilities(ctx: ServerContext): JsonObject {
  const caps = (ctx.mcpReq.envelope as JsonObject | undefined)?.[CLIENT_CAPABILITIES_KEY];
  return isObject(caps) ? caps : {};
}

/** Whether the request declared the tasks extension (then the server may answer with a task). */
export function declaresTasks(ctx: ServerContext): boolean {
  const ext = clientCapabilities(ctx).extensions;
  return isObject(ext) && isObject(ext[TASKS_EXTENSION]);
}

export function missingTasksExtension(what: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${what} requires the ${TASKS_EXTENSION} extension: declare it in _meta["${CLIENT_CAPABILITIES_KEY}"].extensions`,
  );
}

export function requireElicitation(ctx: ServerContext, tool: string): void {
  if (clientCapabilities(ctx).elicitation === undefined)
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { elicitation: {} } },
      `${tool} asks for input by elicitation: declare the elicitation client capability`,
    );
}
