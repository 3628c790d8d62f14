// The keys in what a terminal sent at once. Ink hands its input handlers one event per escape sequence but a run of
// plain characters as one (keys typed faster than stdin is read, or pasted: "jjjj", "\u007f\u007f", "/demo1\r"),
// with its key flags read off the whole run (none of them set). A handler that compared that run with one key lost
// every key in it, and a filter took "\u007f\u007f" as text. Split into keys, each flagged as Ink flags it alone.
import type { Key } from "ink";

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** One key as Ink reads a single character (its parse-keypress and useInput), for the characters of a run. */
export function keyOf(char: string): [string, Key] {
  if (char === "\r") return ["\r", { ...NO_KEY, return: true }];
  if (char === "\t") return ["", { ...NO_KEY, tab: true }];
  if (char === "\b") return ["", { ...NO_KEY, backspace: true }];
  if (char === "\u007f") return ["", { ...NO_KEY, delete: true }];
  if (char !== "\n" && char < "\u001b")
    return [String.fromCharCode(char.charCodeAt(0) + 96), { ...NO_KEY, ctrl: true }];
  return [char, { ...NO_KEY, shift: /^[A-Z]$/.test(char) }];
}

/** The keys of one input event of Ink, in order: itself when it is one key, else each of its characters. */
export function keysOf(input: string, key: Key): Array<[string, Key]> {
  const chars = [...input];
  if (chars.length <= 1 || input.includes("\u001b")) return [[input, key]];
  return chars.map(keyOf);
}
