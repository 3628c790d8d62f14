// Untrusted text (what a server sends) made safe for a terminal and a shell: a ground module, below every layer
// that shows server text (src/protocol, src/store, src/output, src/ui). Server text is untrusted: it must never
// reach a terminal with control sequences intact.
import stripAnsi from "strip-ansi";

// strip-ansi removes escape sequences (CSI, OSC, ...) but leaves lone control characters such as BEL, BS, CR,
// a bare ESC or C1 codes, which still move the cursor or ring the bell; those are removed here.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// Bidirectional overrides and isolates reorder what follows them on screen (a name that reads backwards); the
// Unicode line and paragraph separators break lines in some terminals.
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const SEPARATORS = /[\u2028\u2029]/g;

// A lone surrogate (JSON can carry one) is written to a terminal as U+FFFD: shown as what is written.
const LONE_SURROGATE = /\p{Cs}/gu;

// Every character the replacements below act on (an escape sequence starts with ESC or the C1 CSI, both in it; any
// surrogate, paired or not). Most text has none: one search instead of five passes that each copy it (`list` of
// 10,000 handles sanitizes 40,000 strings).
// eslint-disable-next-line no-control-regex
const SUSPECT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]/;

/** Text safe for a terminal: no escape sequences, no control characters but newline and tab, no bidi overrides. */
export function sanitize(text: string): string {
  if (!SUSPECT.test(text)) return text;
  return stripAnsi(text)
    .replace(CONTROL, "")
    .replace(BIDI, "")
    .replace(SEPARATORS, "\n")
    .replace(LONE_SURROGATE, "\ufffd");
}

// JSON.stringify escapes C0 controls but leaves DEL, the C1 controls (U+0080-U+009F: U+009B is a one-character CSI
// on some terminals), bidi controls and the line separators as they are.
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** JSON text with every character a terminal could act on written as a \\u escape (the same value when parsed). */
export function safeJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent);
  return json === undefined ? json : escapeJsonUnsafe(json);
}

/** JSON text (as JSON.stringify writes it) with safeJson's characters escaped. */
export function escapeJsonUnsafe(json: string): string {
  // Most output has none of them: a search costs a third of a replace that copies (a 3 MB `list --json`: 7 ms).
  if (json.search(JSON_UNSAFE) === -1) return json;
  return json.replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** One line of terminal-safe text: newlines and tabs folded to spaces. */
export function sanitizeLine(text: string): string {
  return sanitize(text).replace(/[\n\t]+/g, " ");
}

/**
 * The forms a secret takes in what mcp-task writes, longest first: as it is, made terminal-safe (`sanitize`, a line),
 * and each of those escaped in JSON once and twice (a `--json` line, a trace line holding a message). Redaction
 * replaces text as it is written, after these escapes: a value with a quote, a backslash or a newline in it was
 * written escaped, and so passed the raw value's search.
 */
export function secretForms(secret: string): string[] {
  const forms = new Set([secret, sanitize(secret), sanitizeLine(secret)]);
  for (const form of [...forms]) {
    const once = escapeJsonUnsafe(JSON.stringify(form)).slice(1, -1);
    forms.add(JSON.stringify(form).slice(1, -1)).add(once).add(JSON.stringify(once).slice(1, -1));
  }
  return [...forms].filter((form) => form.length >= 4).sort((a, b) => b.length - a.length);
}

/**
 * A server-given word (a task id) as it may be pasted into a shell from a hint such as "resume with: mcp-task watch
 * <id>": terminal-safe, and quoted when a shell would act on any of its characters (an id like `x;rm -rf ~` or
 * `$(…)` is shown as one harmless argument). A word that starts with `-` comes after `--`, so that mcp-task does
 * not take it for an option: put it last on the command line.
 */
export function shellWord(text: string): string {
  return shellWords([text]);
}

/** Several operands, as shellWord: one `--` before them all when one starts with `-` (options go before it). */
export function shellWords(texts: string[]): string {
  const dash = texts.some((text) => sanitizeLine(text).startsWith("-"));
  return `${dash ? "-- " : ""}${texts.map(shellValue).join(" ")}`;
}

/**
 * A value for a shell command line (an option's, as `-s <server>`, or a word, above): terminal-safe, and left as it
 * is when it holds only characters no shell acts on (plain words, URLs), else in single quotes, inside which a shell
 * acts on nothing (a quote in it is closed, escaped and reopened). (shell-quote's `quote` would escape every `:` of
 * a URL with a backslash, and needs no more than this.)
 */
export function shellValue(text: string): string {
  const word = sanitizeLine(text);
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
