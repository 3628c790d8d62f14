// The status palette: the symbol (readable without colour) and the colour of every status a task is shown in, one
// table for the Ink views (src/ui) and the printer's status lines (./style.ts).
import type { TaskStatus } from "../protocol/wire.js";

/** A task's status as shown: the server's, or what mcp-task knows of it (its ttl ran out, or the server lost it). */
export type RowStatus = TaskStatus | "expired" | "gone";

export type StatusColour = "cyan" | "magenta" | "green" | "red" | "yellow" | "gray";

export const SYMBOL: Record<RowStatus, string> = {
  working: "◐",
  input_required: "?",
  completed: "✓",
  failed: "✗",
  cancelled: "⊘",
  expired: "⌛",
  gone: "∅",
};

export const COLOR: Record<RowStatus, StatusColour> = {
  working: "cyan",
  input_required: "magenta",
  completed: "green",
  failed: "red",
  cancelled: "yellow",
  expired: "gray",
  gone: "gray",
};
