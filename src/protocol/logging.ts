// Logging notifications (`notifications/message`: level, logger, data) as a wire hands them on, and the levels in
// their order (RFC 5424 severities, as the spec names them). What the server sent is read here once: a level that
// is none of the eight, or no data, is not a log message (dropped); the logger name and the data are kept as
// sent (server text: not display-safe) within MAX_LOG_DATA_CHARS.
import { MAX_LOG_DATA_CHARS } from "../limits.js";

export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A `notifications/message` from the server. */
export interface LogMessage {
  level: LogLevel;
  /** Server text: not display-safe. */
  logger?: string;
  /** Any JSON the server sent (a string most often); one larger than MAX_LOG_DATA_CHARS as JSON is cut to a string. */
  data: unknown;
}

export const isLogLevel = (value: unknown): value is LogLevel => LOG_LEVELS.includes(value as LogLevel);

/** Whether `level` is at or above `threshold`. */
export const atLeast = (level: LogLevel, threshold: LogLevel): boolean =>
  LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);

/** The log message in a notification's params, or undefined when it is not one. */
export function parseLog(params: unknown): LogMessage | undefined {
  const p = params as { level?: unknown; logger?: unknown; data?: unknown } | undefined;
  if (!p || typeof p !== "object" || !isLogLevel(p.level) || p.data === undefined) return undefined;
  const json = JSON.stringify(p.data) ?? "";
  const data = json.length > MAX_LOG_DATA_CHARS ? `${json.slice(0, MAX_LOG_DATA_CHARS)}…` : p.data;
  return {
    level: p.level,
    ...(typeof p.logger === "string" ? { logger: p.logger.slice(0, MAX_LOG_DATA_CHARS) } : {}),
    data,
  };
}
