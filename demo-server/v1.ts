// The demo server's V1 front: MCP 2025-11-25 core tasks on stdio (one connection) or Streamable HTTP on
// 127.0.0.1 (a session per client). The request handlers: v1-face.ts; the HTTP sessions: v1-sessions.ts.

import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { startHttpFront, type RunningFront } from "./http.js";
import { V1Face, type V1Setup } from "./v1-face.js";
import { V1Sessions } from "./v1-sessions.js";

export async function startV1(
  transport: { transport: "stdio" } | { transport: "http"; port: number; host: "127.0.0.1" },
  setup: V1Setup,
): Promise<RunningFront> {
  const face = new V1Face(setup);
  const onerror = (error: Error) => setup.log(`sdk: ${error.message}`);
  if (transport.transport === "stdio") return startStdio(face, onerror);

  const sessions = new V1Sessions(face, setup, onerror);
  const front = await startHttpFront(
    transport.port,
    transport.host,
    async (request, parsed) => {
      if (setup.onInbound)
        for (const message of Array.isArray(parsed) ? parsed : parsed !== undefined ? [parsed] : [])
          setup.onInbound(message);
      return sessions.handle(request, parsed);
    },
    setup.log,
  );
  let stopped!: () => void;
  const closed = new Promise<void>((resolve) => (stopped = resolve));
  return {
    url: front.url,
    closed,
    close: async () => {
      stopped();
      face.close();
      await sessions.close();
      await front.close();
    },
  };
}

async function startStdio(face: V1Face, onerror: (error: Error) => void): Promise<RunningFront> {
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  const server = face.createServer(undefined);
  server.onerror = onerror;
  const stdio = new StdioServerTransport();
  const onclose = server.onclose;
  server.onclose = () => {
    onclose?.();
    ended();
  };
  await server.connect(stdio);
  return {
    closed,
    close: async () => {
      face.close();
      await server.close().catch(() => {});
      ended();
    },
  };
}
