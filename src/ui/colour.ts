// Ink colours through the default chalk instance, which ignores NO_COLOR by itself: follow the IO's decision
// (NO_COLOR, FORCE_COLOR, --no-color) before drawing.
import chalk from "chalk";
import type { IO } from "../context.js";

export function applyColour(io: IO): void {
  if (!io.color) chalk.level = 0;
  else if (chalk.level === 0) chalk.level = 1;
}
