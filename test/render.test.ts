// What a result looks like on the terminal: pure rendering, checked on the shapes real servers send.
import { expect, it } from "vitest";
import { renderResult } from "../src/output/render.js";
import { sanitize } from "../src/sanitize.js";

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
