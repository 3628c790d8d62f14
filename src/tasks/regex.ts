// Regular expressions from servers (a schema's `pattern`, `patternProperties`) run on a linear-time engine: a
// backtracking engine (JavaScript's RegExp) spends minutes at 100 % CPU on `^(a+)+$` against "aaaa…ab", and the
// server chooses both the pattern and, in a result, the text. re2js is the JavaScript port of Google's RE2 (matching
// in time linear in the text): pure JavaScript, so it installs anywhere mcp-task does, where `re2` needs a native
// build (node-gyp, or a prebuilt binary downloaded at install) and `re2-wasm` has had no release since 2021.
// Loaded only by code that checks a schema (tasks/validator.ts, the forms).
import { RE2JS } from "re2js";

export interface LinearRegExp {
  test(text: string): boolean;
  /** False when RE2 cannot run the pattern (lookaround, backreferences): `test` then accepts every text. */
  readonly checked: boolean;
  toString(): string;
}

/**
 * A JSON Schema `pattern` (ECMA-262 syntax, searched anywhere in the text) on RE2. A pattern RE2 cannot run
 * (lookahead, lookbehind, backreferences: features that need backtracking) is not checked at all rather than run on
 * a backtracking engine: the server checks what it receives anyway, and a check skipped costs less than a freeze.
 * A pattern that is not a valid regular expression throws (as `new RegExp` does).
 */
export function linearRegExp(pattern: string): LinearRegExp {
  let compiled: RE2JS | undefined;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    // Valid for JavaScript but beyond RE2: unchecked. Invalid for both: an error, as for any bad schema.
    new RegExp(pattern, "u"); // throws a SyntaxError for an invalid pattern (compiling is linear; matching is not)
    void error;
  }
  return {
    test: (text) => (compiled ? compiled.test(text) : true),
    checked: compiled !== undefined,
    toString: () => `/${pattern}/`,
  };
}
