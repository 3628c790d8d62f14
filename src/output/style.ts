// Colour through one chalk instance whose level follows the IO's colour decision (chalk alone ignores NO_COLOR).
import { Chalk } from "chalk";
import type { TaskStatus } from "../protocol/wire.js";

export function paint(color: boolean) {
  const chalk = new Chalk({ level: color ? 1 : 0 });
  const statusColor: Record<TaskStatus, (s: string) => string> = {
    working: chalk.cyan,
    input_required: chalk.magenta,
    completed: chalk.green,
    failed: chalk.red,
    cancelled: chalk.yellow,
  };
  return {
    dim: chalk.dim,
    red: chalk.red,
    yellow: chalk.yellow,
    bold: chalk.bold,
    status: (status: TaskStatus) => statusColor[status](status),
  };
}
