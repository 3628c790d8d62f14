// The demo's port, apart from the commands' registration (../demo.ts) so that the walk-through, loaded lazily by
// that registration, can import it without an import circle.
import { sha256 } from "../../hash.js";

/** A port that stays the same for one mcp-task directory, so that saved demo tasks find their server again. */
export function demoPort(home: string, generation: string): number {
  return 40000 + (sha256(`${home}|${generation}`).readUInt16BE(0) % 10000);
}
