// What a result looks like on the terminal: pure rendering, checked on the shapes real servers send; and the one
// describe-a-task layout that `get` prints and the dashboard's detail view draws.
import { expect, it } from "vitest";
import { describeTask, describeTaskText } from "../../src/output/describe.js";
import { renderResult } from "../../src/output/render.js";
import { safeJson, sanitize } from "../../src/sanitize.js";

it("prints text as text, and structured content once, pretty", () => {
  const structured = { temperature: 33, conditions: "Cloudy" };
  expect(
    renderResult({ content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured }),
  ).toBe(JSON.stringify(structured, null, 2));
  expect(renderResult({ content: [{ type: "text", text: "Done." }], structuredContent: { n: 1 } })).toBe(
    'Done.\n{\n  "n": 1\n}',
  );
  expect(renderResult({ content: [], structuredContent: { n: 1 } })).toBe('{\n  "n": 1\n}');
});

it("summarises images, audio, links and embedded resources", () => {
  const text = renderResult({
    content: [
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      { type: "resource_link", uri: "demo://r/1", name: "Report", mimeType: "text/plain" },
      { type: "resource", resource: { uri: "demo://r/2", mimeType: "text/plain", text: "inline text" } },
      { type: "resource", resource: { uri: "demo://r/3", blob: "AAAAAAAA" } },
    ],
  });
  expect(text.split("\n")).toEqual([
    "[image: image/png, 8 bytes]",
    "[audio: audio/wav, 3 bytes]",
    "[resource link: demo://r/1 (Report, text/plain)]",
    "[resource: demo://r/2, text/plain]",
    "inline text",
    "[resource: demo://r/3, 6 bytes]",
  ]);
});

it("strips terminal control sequences from server text", () => {
  const hostile = "ok\u001b[2J\u001b]0;pwned\u0007\u001b[31mred\u001b[0m\rback\u0008\u009b31m";
  expect(sanitize(hostile)).toBe("okredback");
  expect(renderResult({ content: [{ type: "text", text: hostile }] })).not.toMatch(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/,
  );
});

it("drops invisible characters from server text, but the joiners and selectors emoji and joining scripts need; JSON escapes them all", () => {
  // Zero-width space, non-joiner and joiner between Latin letters, word joiner and invisible operators, byte order
  // mark, soft hyphen, Hangul filler, a run of variation selectors, tag characters (text hidden in them), bidi.
  const hidden =
    "a\u200bb\u200cc\u200dd\u2060e\u2062f\ufeffg\u00adh\u3164i\ufe0f\ufe0f\ufe0fj\u{e0041}\u{e0042}k\u202el";
  expect(sanitize(hidden)).toBe("abcdefghi\ufe0fjkl");
  // What text needs: emoji sequences, Persian and Devanagari joiners, one variation selector, drawn format characters.
  for (const needed of ["👨\u200d👩\u200d👧", "🏳\ufe0f\u200d🌈", "❤\ufe0f", "می\u200cخواهم", "क्\u200dष", "\u0600١٢"])
    expect(sanitize(needed)).toBe(needed);
  // In JSON every one of them is a \u escape: the same value, nothing invisible on the terminal.
  for (const text of [hidden, "👨\u200d👩"]) {
    const json = safeJson({ text });
    expect(JSON.parse(json)).toEqual({ text });
    expect(json).not.toMatch(/[\p{Cf}\p{Default_Ignorable_Code_Point}]/u);
  }
  // The lists the fast searches use hold every such character (and sanitize leaves none it does not keep).
  for (let code = 0; code <= 0x10ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const ch = String.fromCodePoint(code);
    if (!/[\p{Cf}\p{Default_Ignorable_Code_Point}]/u.test(ch)) continue;
    expect(safeJson(`x${ch}`), code.toString(16)).toMatch(/^"x(\\u[0-9a-f]{4})+"$/);
    expect(sanitize(`x${ch}`), code.toString(16)).toBe(
      /[\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u{110bd}\u{110cd}\ufe00-\ufe0f]/u.test(ch) ? `x${ch}` : "x",
    );
  }
});

it("describes a task in one layout: get's text and the detail view's lines hold the same facts", () => {
  const task = {
    taskId: "t-1\u001b[31m",
    tool: "export",
    server: "erp",
    generation: "v2",
    statusMessage: "3% done",
    createdAt: "2026-12-01T10:00:00.000Z",
    updatedAt: "2026-12-01T10:00:05.000Z",
    ttlMs: 3_600_000,
    pollIntervalMs: 1000,
    gone: null,
  };
  const shown = { status: "working" as const, protocolVersion: "2026-07-28" };
  const text = describeTaskText(task, shown);
  const drawn = describeTask(task, { ...shown, ttlLeftMs: 600_000 });
  // get: the id first (what a script reads), then the facts; durations through src/duration.ts.
  expect(text).toEqual([
    "t-1  working  3% done",
    "  tool     export on erp (V2, protocol 2026-07-28)",
    "  created  2026-12-01T10:00:00.000Z   updated 2026-12-01T10:00:05.000Z",
    "  ttl      60 min, poll interval 1 s",
  ]);
  // The detail view: the status with its symbol and colour, the id on its own line, then the same facts.
  expect(drawn[0]).toMatchObject({ text: "◐ working  3% done", color: "cyan", bold: true });
  expect(drawn.slice(1).map((l) => l.text)).toEqual([
    "  task     t-1",
    text[1],
    text[2],
    "  ttl      60 min (10m left), poll interval 1 s",
  ]);
  expect(describeTaskText({ ...task, ttlMs: undefined, pollIntervalMs: null, gone: "lost" }, shown).slice(3)).toEqual([
    "  ttl      not given, poll interval not given",
    "  gone     lost",
  ]);
  expect(describeTaskText({ ...task, ttlMs: null }, shown)[3]).toBe("  ttl      unlimited, poll interval 1 s");
});
