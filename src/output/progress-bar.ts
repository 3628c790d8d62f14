// Progress as one line: a bar with the percentage, the rate and the time left where the server gives a total
// ("▕████▌   ▏ 45 % · 3.2/s · ~12s left"), else the count and the rate. Pure: the stderr status line, the live
// view and the dashboard's row all draw it. Fitted to a width: the percentage is never cut; the time left, then the
// rate go when even the narrowest bar leaves no room; the bar shrinks before anything else; server text comes last
// and takes what is left.
import { compactDuration } from "../duration.js";
import type { Progress } from "../protocol/wire.js";
import { sanitizeLine } from "../sanitize.js";

/** Cells of the bar at its widest and at its narrowest (below that it goes). */
export const BAR_MAX = 20;
export const BAR_MIN = 3;
/** Columns of server text the bar makes room for by shrinking. */
const TEXT_ROOM = 24;
/** Eighths of a cell (U+258F..U+2589), for a bar finer than whole cells. */
const EIGHTHS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/** One report, when it was seen (ms), and the first report of the same run, for the rate. */
export interface ProgressPoint {
  progress: number;
  at: number;
}

/** Units a second between two reports; undefined when it cannot be told (too close together, or no headway). */
export function rateOf(first: ProgressPoint | undefined, last: ProgressPoint): number | undefined {
  if (!first) return undefined;
  const seconds = (last.at - first.at) / 1000;
  const done = last.progress - first.progress;
  return seconds >= 0.5 && done > 0 ? done / seconds : undefined;
}

/** The whole percentage, clamped to 0-100; undefined without a total. */
export function percentOf(progress: Progress): number | undefined {
  if (progress.total === undefined || !(progress.total > 0)) return undefined;
  return Math.max(0, Math.min(100, Math.floor((progress.progress / progress.total) * 100)));
}

/** A bar of `cells` cells filled to `fraction` (0-1), in eighths, between thin brackets. */
export function bar(fraction: number, cells: number): string {
  const eighths = Math.round(Math.max(0, Math.min(1, fraction)) * cells * 8);
  const full = Math.floor(eighths / 8);
  const part = EIGHTHS[eighths % 8];
  return `▕${"█".repeat(full)}${part}${" ".repeat(cells - full - (part ? 1 : 0))}▏`;
}

const rateText = (rate: number) => `${rate >= 10 ? Math.round(rate) : Math.round(rate * 10) / 10}/s`;

export interface ProgressLineOptions {
  /** Columns the line may take. */
  width: number;
  /** Units a second (rateOf), if known. */
  rate?: number;
  /** Server text after the figures (default: the report's message); made safe here. */
  text?: string;
}

/** The progress line fitted into `width` columns (see the top of this file for what goes first). */
export function progressLine(progress: Progress, options: ProgressLineOptions): string {
  const percent = percentOf(progress);
  const facts = [percent === undefined ? String(progress.progress) : `${percent} %`];
  if (options.rate !== undefined) facts.push(rateText(options.rate));
  if (options.rate !== undefined && percent !== undefined && progress.total! > progress.progress)
    facts.push(`~${compactDuration(((progress.total! - progress.progress) / options.rate) * 1000)} left`);
  const joined = () => facts.join(" · ");
  // The narrowest bar (its cells, two brackets and a space) must fit beside the figures, else the figures give way.
  const barRoom = percent === undefined ? 0 : BAR_MIN + 3;
  while (facts.length > 1 && joined().length + barRoom > options.width) facts.pop();
  let line = joined();
  const text = sanitizeLine(options.text ?? progress.message ?? "");
  if (percent !== undefined) {
    // The bar gives up cells (down to its narrowest) for the start of the server text.
    const room = options.width - line.length - 3;
    const cells = Math.min(BAR_MAX, room, Math.max(BAR_MIN, room - (text ? Math.min(text.length + 3, TEXT_ROOM) : 0)));
    if (cells >= BAR_MIN) line = `${bar(percent / 100, cells)} ${line}`;
  }
  const room = options.width - line.length - 3;
  if (text && room >= 2) line += ` - ${text.length > room ? `${text.slice(0, room - 1)}…` : text}`;
  return line;
}

/** The first report of each task (or call) seen, so that a later one has a rate. */
export class ProgressPace {
  private readonly first = new Map<string, ProgressPoint>();

  /** The rate of `key`'s reports with this one, seen at `at` (ms); a report that goes backwards starts afresh. */
  see(key: string, progress: Progress, at: number): number | undefined {
    const point = { progress: progress.progress, at };
    const first = this.first.get(key);
    if (!first || progress.progress < first.progress) {
      this.first.set(key, point);
      return undefined;
    }
    return rateOf(first, point);
  }
}
