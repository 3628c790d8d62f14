// The build's edit of @alcalzone/ansi-tokenize (scripts/build-patches.mjs tokenizeSimpleLines): the edited tokenize
// reads every line into the same tokens as the package's own, on the lines the dashboard draws (its symbols, escape
// codes, links) and on random mixes of the characters where a walk by UTF-16 unit could go wrong (escape-code
// fragments, a combining mark, CRLF, emoji, wide characters), which must keep the segmenter's walk.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs of the build, without types
import { tokenizeSimpleLines } from "../../scripts/build-patches.mjs";

type Tokenize = (line: string, endChar?: number) => unknown[];

const require = createRequire(import.meta.url);
const original = join(
  dirname(require.resolve("@alcalzone/ansi-tokenize/package.json", { paths: [dirname(require.resolve("ink"))] })),
  "build/tokenize.js",
);

/** The package's tokenize.js as the build edits it, loaded from a temporary folder: its imports point at the package's files. */
async function editedTokenize(): Promise<Tokenize> {
  let onLoad: ((args: { path: string }) => Promise<{ contents: string }>) | undefined;
  tokenizeSimpleLines.setup({ onLoad: (_filter: unknown, fn: typeof onLoad) => (onLoad = fn) });
  const { contents } = await onLoad!({ path: original });
  const from = createRequire(original);
  const absolute = contents
    .replace(/\/\/# sourceMappingURL=.*$/m, "")
    .replace(
      'from "is-fullwidth-code-point"',
      `from ${JSON.stringify(pathToFileURL(from.resolve("is-fullwidth-code-point")).href)}`,
    )
    .replace(
      'from "./ansiCodes.js"',
      `from ${JSON.stringify(pathToFileURL(join(dirname(original), "ansiCodes.js")).href)}`,
    );
  expect(absolute).not.toMatch(/from "[^f]/);
  const folder = mkdtempSync(join(tmpdir(), "mcp-task-tokenize-"));
  const file = join(folder, "tokenize.mjs");
  writeFileSync(file, absolute);
  try {
    return ((await import(pathToFileURL(file).href)) as { tokenize: Tokenize }).tokenize;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

describe("the build's edit of ansi-tokenize", () => {
  it("reads every line into the tokens the package reads", async () => {
    const edited = await editedTokenize();
    const { tokenize } = (await import(pathToFileURL(original).href)) as { tokenize: Tokenize };
    expect(readFileSync(original, "utf8")).toContain("segmenter.segment(str)");
    const lines = [
      "",
      "\x1b[32m✓\x1b[39m demo  task_slow  4f2a9c1e  working  step 42 of 1200 · 3m 12s …",
      "\x1b[1;31mred\x1b[0m ◐ working ▉▊▋ 45%",
      "\x1b]8;;https://example.com/\x07link\x1b]8;;\x07 done",
      "\x1b[38;2;1;2;3mrgb\x1b[39m",
      "e\u0301 combining",
      "👍🏽 emoji, 🇫🇷 flag",
      "中文 wide",
      "a\r\nb",
      "\x1b[",
      "\x1b[12",
    ];
    const pieces = [
      "a",
      " ",
      "✓",
      "◐",
      "…",
      "\x1b[2m",
      "\x1b[22m",
      "\x1b",
      "[",
      "m",
      "3",
      ";",
      "\x07",
      "]",
      "\u0301",
      "\r",
      "\n",
      "中",
      "👍",
    ];
    let seed = 17;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 3000; i++) {
      let line = "";
      for (let n = Math.floor(random() * 30); n > 0; n--) line += pieces[Math.floor(random() * pieces.length)];
      lines.push(line);
    }
    for (const line of lines)
      for (const end of [Number.POSITIVE_INFINITY, 5])
        expect(edited(line, end), JSON.stringify(line)).toEqual(tokenize(line, end));
  });
});
