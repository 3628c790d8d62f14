// SHA-256 and random UUIDs with node:crypto loaded on first use. Loading node:crypto costs ~4 ms of start-up, which
// `list`, `--help` and the other commands that never hash need not pay (start-up is measured: BENCHMARKS.md).
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);
let crypto: typeof import("node:crypto") | undefined;

export function sha256(text: string): Buffer {
  crypto ??= load("node:crypto") as typeof import("node:crypto");
  return crypto.createHash("sha256").update(text).digest();
}

export function sha256Hex(text: string | Array<string | Uint8Array>): string {
  if (typeof text === "string") return sha256(text).toString("hex");
  crypto ??= load("node:crypto") as typeof import("node:crypto");
  const hash = crypto.createHash("sha256");
  for (const part of text) hash.update(part);
  return hash.digest("hex");
}

export function randomUUID(): string {
  crypto ??= load("node:crypto") as typeof import("node:crypto");
  return crypto.randomUUID();
}

/** A short random suffix for a temp file name: with the pid and exclusive creation it only needs to be unlikely to
 *  repeat, not secret. */
export function tempSuffix(): string {
  return Math.random().toString(36).slice(2, 10);
}
