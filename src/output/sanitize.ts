// Server text is untrusted: it must never reach a terminal with control sequences intact.
import stripAnsi from "strip-ansi";

// strip-ansi removes escape sequences (CSI, OSC, ...) but leaves lone control characters such as BEL, BS, CR,
// a bare ESC or C1 codes, which still move the cursor or ring the bell; those are removed here.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Text safe for a terminal: no escape sequences, no control characters but newline and tab. */
export function sanitize(text: string): string {
  return stripAnsi(text).replace(CONTROL, "");
}

/** One line of terminal-safe text: newlines and tabs folded to spaces. */
export function sanitizeLine(text: string): string {
  return sanitize(text).replace(/[\n\t]+/g, " ");
}
