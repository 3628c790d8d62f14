// Durations as people type them (`30s`, `5m`) and as mcp-task says them.
import { UsageError } from "./errors.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `500ms`, `30s`, `5m`, `2h`, `1d`; a bare number is in `bare` units: seconds, but milliseconds for a flag that took
 * a number of milliseconds before it took durations (`--ttl 60000` means what it always meant).
 */
export function parseDuration(value: string, what: string, bare: "s" | "ms" = "s"): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  if (!match) throw new UsageError(`${what}: not a duration: ${value}`, "write durations like 30s, 5m, 2h or 1500ms");
  return Math.round(Number(match[1]) * UNITS[match[2] ?? bare]);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 360_000) / 10} h`;
}

/** 4s, 12m, 3h, 2d (whole units, rounded down); "-" for unknown. For columns and status lines. */
export function compactDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "-";
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}
