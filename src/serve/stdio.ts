// The MCP stdio framing of `mcp-task serve` over the context's streams (an agent spawns it): the SDK's own reading
// and writing of lines, on ctx.io rather than the process's, so its stdout redacts the secrets this process knows.
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "../context.js";

/** The MCP stdio framing over the context's streams (its stdout redacts the secrets this process knows). */
export class ContextStdio implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();
  private closed = false;

  constructor(private readonly io: Context["io"]) {}

  async start(): Promise<void> {
    this.io.stdin.on("data", this.data);
    this.io.stdin.on("end", this.ended);
    this.io.stdin.on("close", this.ended);
    this.io.stdin.on("error", this.ended);
  }

  private readonly data = (chunk: Buffer) => {
    this.buffer.append(chunk);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  };

  private readonly ended = () => void this.close();

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.closed) this.io.stdout.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.io.stdin.off("data", this.data);
    this.buffer.clear();
    this.onclose?.();
  }
}
