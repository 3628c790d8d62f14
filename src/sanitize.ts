// Untrusted text (what a server sends) made safe for a terminal and a shell: a ground module, below every layer
// that shows server text (src/protocol, src/store, src/output, src/ui). Server text is untrusted: it must never
// reach a terminal with control sequences intact.
import stripAnsi from "strip-ansi";

// strip-ansi removes escape sequences (CSI, OSC, ...) but leaves lone control characters such as BEL, BS, CR,
// a bare ESC or C1 codes, which still move the cursor or ring the bell; those are removed here.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// Invisible characters: Unicode's format characters (Cf: zero-width space and joiners, word joiner, byte order mark,
// soft hyphen, tag characters, and the bidirectional overrides and isolates, which reorder what follows them on
// screen) and the other default-ignorable ones (Hangul fillers, variation selectors...). None draws anything: two
// ids that differ by one look the same, and a message can hide text in them. They are dropped, but for what text
// needs (see kept): a joiner inside an emoji sequence or a word of a script that joins its letters, one variation
// selector after a character, and the format characters that are drawn (Arabic number signs and the like).
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const DRAWN_FORMAT = /[\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u{110bd}\u{110cd}]/u;
const VARIATION = /[\ufe00-\ufe0f]/;
const JOINERS = /[\u200c\u200d]/;
const EMOJI_BEFORE = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\ufe0f]/u;
const EMOJI = /\p{Extended_Pictographic}/u;
const LETTER = /[\p{L}\p{M}]/u;
// The scripts whose words take a zero-width joiner or non-joiner (Persian, Urdu, Hindi, Sinhala...).
const JOINING_SCRIPT =
  /[\p{scx=Arabic}\p{scx=Syriac}\p{scx=Nko}\p{scx=Mongolian}\p{scx=Mandaic}\p{scx=Adlam}\p{scx=Devanagari}\p{scx=Bengali}\p{scx=Gurmukhi}\p{scx=Gujarati}\p{scx=Oriya}\p{scx=Tamil}\p{scx=Telugu}\p{scx=Kannada}\p{scx=Malayalam}\p{scx=Sinhala}\p{scx=Myanmar}\p{scx=Khmer}\p{scx=Tibetan}]/u;
const SEPARATORS = /[\u2028\u2029]/g;

/** The character (code point) of `text` that ends just before `at`, and the one that starts at `end`. */
function around(text: string, at: number, end: number): [string, string] {
  const before = at >= 2 && /[\udc00-\udfff]/.test(text[at - 1]) ? text.slice(at - 2, at) : text.slice(at - 1, at);
  return [before, String.fromCodePoint(text.codePointAt(end) ?? 0x20)];
}

/** Whether the invisible character `ch` at `at` in `text` is one text needs (see INVISIBLE). */
function kept(ch: string, at: number, text: string): boolean {
  if (DRAWN_FORMAT.test(ch)) return true;
  const [before, after] = around(text, at, at + ch.length);
  if (VARIATION.test(ch)) return before !== "" && !INVISIBLE_ONE.test(before) && before !== "\n";
  if (!JOINERS.test(ch)) return false;
  if (ch === "\u200d" && EMOJI_BEFORE.test(before) && EMOJI.test(after)) return true;
  return JOINING_SCRIPT.test(before) && LETTER.test(before) && LETTER.test(after);
}
const INVISIBLE_ONE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;

// A lone surrogate (JSON can carry one) is written to a terminal as U+FFFD: shown as what is written.
const LONE_SURROGATE = /\p{Cs}/gu;

// Every character the replacements below act on (an escape sequence starts with ESC or the C1 CSI, both in it; any
// surrogate, paired or not). Most text has none: one search instead of five passes that each copy it (`list` of
// 10,000 handles sanitizes 40,000 strings).
// The invisible characters of the Basic Multilingual Plane are listed (a test checks the list against Unicode's
// classes): a class of properties costs this search three times as much.
// eslint-disable-next-line no-control-regex
const SUSPECT =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ud800-\udfff]/;

/**
 * Text safe for a terminal: no escape sequences, no control characters but newline and tab, no bidi overrides, no
 * invisible characters but those text needs (see INVISIBLE).
 */
export function sanitize(text: string): string {
  if (!SUSPECT.test(text)) return text;
  return stripAnsi(text)
    .replace(CONTROL, "")
    .replace(INVISIBLE, (ch: string, at: number, all: string) => (kept(ch, at, all) ? ch : ""))
    .replace(SEPARATORS, "\n")
    .replace(LONE_SURROGATE, "\ufffd");
}

// JSON.stringify escapes C0 controls but leaves DEL, the C1 controls (U+0080-U+009F: U+009B is a one-character CSI
// on some terminals), the invisible characters (bidi controls among them: see INVISIBLE; those outside the Basic
// Multilingual Plane as their surrogate pairs) and the line separators as they are.
const JSON_UNSAFE =
  /[\u007f-\u009f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb]|\ud804[\udcbd\udccd]|\ud80d[\udc30-\udc3f]|\ud82f[\udca0-\udca3]|\ud834[\udd73-\udd7a]|[\udb40-\udb43][\udc00-\udfff]/g;
// What the search looks for first (one character class: on text without any, the pairs above as an alternation cost
// the search three times as much): JSON_UNSAFE's characters, and the high surrogates of its pairs.
const JSON_SUSPECT =
  /[\u007f-\u009f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ud804\ud80d\ud82f\ud834\udb40-\udb43]/;
const escapeUnits = (chars: string) =>
  Array.from({ length: chars.length }, (_, i) => `\\u${chars.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");

/** JSON text with every character a terminal could act on written as a \\u escape (the same value when parsed). */
export function safeJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent);
  return json === undefined ? json : escapeJsonUnsafe(json);
}

/** JSON text (as JSON.stringify writes it) with safeJson's characters escaped. */
export function escapeJsonUnsafe(json: string): string {
  // Most output has none of them: a search costs a third of a replace that copies (a 3 MB `list --json`: 7 ms).
  if (json.search(JSON_SUSPECT) === -1) return json;
  return json.replace(JSON_UNSAFE, escapeUnits);
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
