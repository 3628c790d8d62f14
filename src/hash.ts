// SHA-256, random UUIDs and the index's checksum, with node:crypto and node:zlib loaded on first use. Loading
// node:crypto costs ~4 ms of start-up, which `list`, `--help` and the other commands that never hash need not pay
// (start-up is measured: BENCHMARKS.md).
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);
let crypto: typeof import("node:crypto") | undefined;
let zlib: typeof import("node:zlib") | undefined;

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

/**
 * The handle index's checksum of the bytes a stamp vouches for (see DirStamp): CRC-32, 8 hex digits (node:zlib's,
 * Node 20.15 on; 35 MB in ~7 ms against SHA-256's ~20, which a Node without it still uses). A check that the log is
 * as its stamping reader read it, not a seal: a process that can rewrite the log can rewrite its stamp as well.
 */
export function logChecksum(parts: Array<string | Uint8Array>): string {
  zlib ??= load("node:zlib") as typeof import("node:zlib");
  if (!zlib.crc32) return sha256Hex(parts);
  let crc = 0;
  for (const part of parts) crc = zlib.crc32(part, crc);
  return crc.toString(16).padStart(8, "0");
}

/** Whether `parts` have the checksum `expected`: logChecksum's, or an older stamp's SHA-256 (64 hex digits). */
export function logChecksumIs(parts: Array<string | Uint8Array>, expected: string): boolean {
  return (expected.length === 64 ? sha256Hex(parts) : logChecksum(parts)) === expected;
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
