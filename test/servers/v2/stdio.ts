// stdio front: the SDK's serveStdio over a StdioServerTransport wrapped so that every inbound message
// is counted and task subscriptions (see listen.ts) are served before the SDK sees them.

import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import type { StdioServerHandle } from "@modelcontextprotocol/server/stdio";
import type { JSONRPCMessage, MessageExtraInfo, Server, Transport, TransportSendOptions } from "@modelcontextprotocol/server";
import type { ListenHub } from "./listen.js";
import { countMessage, log } from "./stats.js";

class InterceptingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(
    private readonly inner: StdioServerTransport,
    private readonly hub: ListenHub,
    private readonly onEnd: () => void,
  ) {}

  async start(): Promise<void> {
    this.inner.onclose = () => {
      this.onclose?.();
      this.onEnd();
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onmessage = (message) => {
      countMessage(message);
      if (this.hub.wants(message)) {
        this.hub.open(message, (m) => {
          this.inner.send(m as JSONRPCMessage).catch((error: Error) => log(`stdio send: ${error.message}`));
        });
        return;
      }
      const m = message as { method?: unknown; params?: { requestId?: unknown } };
      if (m.method === "notifications/cancelled" && this.hub.cancelById(m.params?.requestId)) return;
      this.onmessage?.(message);
    };
    await this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    void options; // StdioServerTransport.send takes no options
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export function startStdio(factory: () => Server, hub: ListenHub, onClose: () => void): StdioServerHandle {
  const inner = new StdioServerTransport();
  const transport = new InterceptingTransport(inner, hub, onClose);
  return serveStdio(factory, { legacy: "reject", transport, onerror: (error) => log(`sdk: ${error.message}`) });
}
