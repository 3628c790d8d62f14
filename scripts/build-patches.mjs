// The build's edits of third-party code (scripts/build.mjs applies them to the lazy bundle): each one fixes a defect
// or a cost measured in mcp-task's use (docs/stack.md), and fails the build if the code no longer reads as expected,
// rather than shipping the package unedited unnoticed.
import { readFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");

// Ink keeps every text it ever measured (measure-text.js: a Map) and every text it ever wrapped (wrap-text.js: an
// object), for the life of the process: a dashboard whose rows change every second grew by tens of MB an hour.
// Both caches are made to start again past INK_CACHE_ENTRIES (a frame needs a few hundred). The build fails if
// Ink's code no longer reads as expected, rather than shipping the unbounded caches unnoticed.
const INK_CACHE_ENTRIES = 4096;
export const inkBoundedCaches = {
  name: "ink-bounded-caches",
  setup(b) {
    const edits = {
      "measure-text.js": [
        [
          "cache.set(text, dimensions);",
          `if (cache.size >= ${INK_CACHE_ENTRIES}) cache.clear();\n    cache.set(text, dimensions);`,
        ],
      ],
      "wrap-text.js": [
        ["const cache = {};", "let cache = {};\nlet cacheEntries = 0;"],
        [
          "cache[cacheKey] = wrappedText;",
          `if (++cacheEntries > ${INK_CACHE_ENTRIES}) (cache = {}), (cacheEntries = 1);\n    cache[cacheKey] = wrappedText;`,
        ],
      ],
    };
    b.onLoad({ filter: /[\\/]ink[\\/]build[\\/](measure-text|wrap-text)\.js$/ }, async (args) => {
      let contents = await readFile(args.path, "utf8");
      for (const [from, to] of edits[basename(args.path)]) {
        if (!contents.includes(from)) throw new Error(`ink-bounded-caches: ${args.path} no longer has ${from}`);
        contents = contents.replace(from, to);
      }
      return { contents, loader: "js" };
    });
  },
};

// Ink draws a frame by turning every cell of the screen into a styled character and back into a string
// (@alcalzone/ansi-tokenize): a copy of the style list for each character read, and for each character written three
// Sets and four arrays to tell what changed from the one before (diffAnsiCodes), even where nothing did. At 140x45
// that was ~16 MB of garbage a frame, half of what a dashboard following 1,000 tasks allocated. The edits: a character
// read is its token with the styles it is under (a fresh token of tokenize's, not a copy), and characters read under
// the same styles share one list (reduceAnsiCodesIncremental returns a new list, never changes one, and nothing
// changes a character or its list); a character whose list is the one before, or both empty, needs no diff (the diff
// of equal lists is empty); the blank cells of the screen are one frozen cell. What is written is the same string.
// The build fails if the code no longer reads as expected.
const INK_BLANK = "__mcpTaskBlankCell";
export const inkStyledChars = {
  name: "ink-styled-chars",
  setup(b) {
    const edits = {
      "styledChars.js": [
        [
          "ret.push({\n                ...token,\n                styles: [...codes],\n            });",
          "token.styles = codes;\n            ret.push(token);",
        ],
        [
          "ret += ansiCodesToString(diffAnsiCodes(chars[i - 1].styles, char.styles));",
          "const before = chars[i - 1].styles;\n" +
            "            if (before !== char.styles && (before.length > 0 || char.styles.length > 0))\n" +
            "                ret += ansiCodesToString(diffAnsiCodes(before, char.styles));",
        ],
        [
          "ret += ansiCodesToString(diffAnsiCodes(char.styles, []));",
          "if (char.styles.length > 0) ret += ansiCodesToString(diffAnsiCodes(char.styles, []));",
        ],
      ],
      "output.js": [
        [
          "class OutputCaches {",
          `const ${INK_BLANK} = Object.freeze({ type: "char", value: " ", fullWidth: false, styles: Object.freeze([]) });\nclass OutputCaches {`,
        ],
        [
          "row.push({\n                    type: 'char',\n                    value: ' ',\n                    fullWidth: false,\n                    styles: [],\n                });",
          `row.push(${INK_BLANK});`,
        ],
      ],
    };
    const filter = /[\\/](@alcalzone[\\/]ansi-tokenize[\\/]build[\\/]styledChars|ink[\\/]build[\\/]output)\.js$/;
    b.onLoad({ filter }, async (args) => {
      let contents = await readFile(args.path, "utf8");
      for (const [from, to] of edits[basename(args.path)]) {
        if (!contents.includes(from)) throw new Error(`ink-styled-chars: ${args.path} no longer has ${from}`);
        contents = contents.replace(from, to);
      }
      return { contents, loader: "js" };
    });
  },
};

// string-width (which Ink calls on every line it lays out and again as it draws it) measures printable ASCII by its
// length and anything else grapheme by grapheme, with Intl.Segmenter and Unicode property regexes: about a
// microsecond a character. Every row of the dashboard carries a status symbol (◐ ✓ ✗), and often a "…" or "·", so
// every row of every frame took the slow path (a quarter of a dashboard's drawing at 1,000 followed tasks). The fast
// path is widened to the symbols mcp-task itself draws, each one measured here by string-width to be one column
// wide on its own (one that is not, like ⌛, stays on the slow path). A string with any other character, server text
// included, is measured as before. The build fails if string-width no longer reads as expected.
const { default: stringWidth } = await import("string-width");
const OWN_SYMBOLS = [..."◐?✓✗⊘⌛∅·…↓↑›‹▏▕▌▎▍▋▊▉█•→←"].filter((ch) => stringWidth(ch) === 1);
/** OWN_SYMBOLS as the inside of a regex character class, each escaped (both edits below put them in one). */
const OWN_SYMBOLS_CLASS = OWN_SYMBOLS.map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
const STRING_WIDTH_ASCII = "if (/^[\\u0020-\\u007E]*$/.test(string)) {";
export const stringWidthSymbols = {
  name: "string-width-symbols",
  setup(b) {
    // Ink's own string-width (wrap-ansi keeps an older major of it, for wrapped text only: not the rows).
    b.onLoad({ filter: /[\\/]node_modules[\\/]string-width[\\/]index\.js$/ }, async (args) => {
      if (args.path !== join(root, "node_modules/string-width/index.js")) return undefined;
      const contents = await readFile(args.path, "utf8");
      if (!contents.includes(STRING_WIDTH_ASCII))
        throw new Error(`string-width-symbols: ${args.path} no longer has its ASCII fast path`);
      return {
        contents: contents.replace(
          STRING_WIDTH_ASCII,
          STRING_WIDTH_ASCII.replace("u007E", `u007E${OWN_SYMBOLS_CLASS}`),
        ),
        loader: "js",
      };
    });
  },
};

// Ink reads each line it draws into characters with @alcalzone/ansi-tokenize, which walks the line grapheme by
// grapheme with Intl.Segmenter: a segment object and an iterator result for every character, and the segmenter's
// own cost, for every line that changed since the last frame (at 1,000 followed tasks every row changes every
// second: a fifth of what the dashboard allocated, measured with V8's sampling heap profiler). A line made only of
// characters that are each a grapheme of their own (printable ASCII, ESC and BEL of the escape codes, and the symbols
// mcp-task draws: OWN_SYMBOLS, none of them combining) is walked one UTF-16 unit at a time instead, which yields the
// same segments at the same indices; any other line (server text with other characters) is walked as before. The
// build fails if ansi-tokenize no longer reads as expected.
const TOKENIZE_LOOP =
  "for (const { segment, index } of segmenter.segment(str)) {\n" +
  "        // Skip segments consumed as part of an ANSI sequence\n" +
  "        if (index < codeEndIndex)\n";
export const tokenizeSimpleLines = {
  name: "ansi-tokenize-simple-lines",
  setup(b) {
    b.onLoad({ filter: /[\\/]@alcalzone[\\/]ansi-tokenize[\\/]build[\\/]tokenize\.js$/ }, async (args) => {
      const contents = await readFile(args.path, "utf8");
      if (!contents.includes(TOKENIZE_LOOP))
        throw new Error(`ansi-tokenize-simple-lines: ${args.path} no longer has its segmenter loop`);
      const loop =
        `const simple = /^[\\u0007\\u001b\\u0020-\\u007e${OWN_SYMBOLS_CLASS}]*$/.test(str);\n` +
        "    const segments = simple ? undefined : segmenter.segment(str)[Symbol.iterator]();\n" +
        "    for (let at = 0; ; at++) {\n" +
        "        let segment, index;\n" +
        "        if (segments === undefined) {\n" +
        "            if (at >= str.length) break;\n" +
        "            segment = str[at];\n" +
        "            index = at;\n" +
        "        } else {\n" +
        "            const next = segments.next();\n" +
        "            if (next.done) break;\n" +
        "            ({ segment, index } = next.value);\n" +
        "        }\n" +
        "        if (index < codeEndIndex)\n";
      return { contents: contents.replace(TOKENIZE_LOOP, loop), loader: "js" };
    });
  },
};

// yoga-layout's loader (emscripten's) holds its wasm as a data: URI, and reads it with fetch() wherever fetch is a
// function: on Node that loads Node's own undici (~40 ms of the dashboard's first frame, profiled at 1,000 and
// 100,000 handles) to fetch bytes already in memory. The edit takes the loader's own synchronous path for a data:
// URI (its base64 decoded with atob, as it does where fetch is missing); the wasm compiled is the same. The build
// fails if the loader no longer reads as expected.
const YOGA_FETCH = 'function ya(){return w||"function"!=typeof fetch?';
export const yogaWithoutFetch = {
  name: "yoga-without-fetch",
  setup(b) {
    b.onLoad({ filter: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, async (args) => {
      const contents = await readFile(args.path, "utf8");
      if (!contents.includes(YOGA_FETCH))
        throw new Error(`yoga-without-fetch: ${args.path} no longer has ${YOGA_FETCH}`);
      return { contents: contents.replace(YOGA_FETCH, YOGA_FETCH.replace("w||", "w||ua(H)||")), loader: "js" };
    });
  },
};
