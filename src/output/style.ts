// Colour for the printer's status lines, when the IO's colour decision (NO_COLOR, FORCE_COLOR, --no-color, a TTY)
// says so. Written with the SGR codes themselves rather than chalk: chalk's supports-color probes the environment
// and the terminal when it is loaded (and its module costs a few ms), which every command paid at start-up, and
// mcp-task has made that decision already. Each style wraps a single line, so chalk's nesting and line-break care is not needed.
// (Ink's views still colour through chalk; see src/ui/colour.ts.)
import type { TaskStatus } from "../protocol/wire.js";
import { COLOR, type StatusColour } from "./palette.js";

type Style = (text: string) => string;

const sgr =
  (open: number, close: number): Style =>
  (text) =>
    `\u001b[${open}m${text}\u001b[${close}m`;
const plain: Style = (text) => text;

export function paint(color: boolean) {
  const [dim, bold, red, green, yellow, magenta, cyan] = color
    ? [sgr(2, 22), sgr(1, 22), sgr(31, 39), sgr(32, 39), sgr(33, 39), sgr(35, 39), sgr(36, 39)]
    : [plain, plain, plain, plain, plain, plain, plain];
  const gray = color ? sgr(90, 39) : plain;
  // The palette's colour names (./palette.ts, shared with the Ink views) as SGR styles.
  const byName: Record<StatusColour, Style> = { cyan, magenta, green, red, yellow, gray };
  return {
    dim,
    red,
    yellow,
    bold,
    status: (status: TaskStatus) => byName[COLOR[status]](status),
    /** Text in the colour of a status (`failed:`, `cancelled:`). */
    inStatus: (status: TaskStatus, text: string) => byName[COLOR[status]](text),
  };
}
