// The names servers are saved under (`server add`, `server import`).
import { UsageError } from "../../errors.js";
import { sanitizeLine } from "../../sanitize.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkName(name: string): string {
  if (!NAME.test(name))
    throw new UsageError(
      `not a valid server name: ${sanitizeLine(name)}`,
      "use letters, digits, '.', '_' and '-' (at most 64)",
    );
  return name;
}
