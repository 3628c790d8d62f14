// Server text in a question, quoted: the rule that keeps a server's words from passing for mcp-task's own lines
// (SECURITY.md, "A question's text"). Text that keeps its line breaks (a question's message, a field's description,
// a sampling request's messages and system prompt, a URL request's message) is shown line by line behind a gutter,
// under a header of mcp-task's that says the server asks; text folded into one line (titles, choices) follows
// mcp-task's own words or marks on its line. No line of server text starts at column 0. The Ink form's gutter is
// ./form/ServerText.tsx, this one's twin.
import { sanitize } from "../sanitize.js";

/** The mark before each line of server text shown on lines of its own; mcp-task's own lines never start with it. */
export const GUTTER = "│ ";

/** Server text (made terminal-safe here) as lines of their own, each `indent` + GUTTER + one line of it. */
export function quotedLines(text: string, indent = "  "): string[] {
  return sanitize(text)
    .split("\n")
    .map((line) => `${indent}${GUTTER}${line}`);
}
