// A client's MCP file as a tree (`server import`): JSONC (comments, trailing commas) read with jsonc-parser, its
// nesting bounded before that parser (which recurses) sees it, and its objects' keys kept as the file gives them, so
// that a key given twice is seen: JSON.parse and jsonc-parser's parse keep the last silently, so a reader of the file
// (a person, or a client that takes the first) would see another server than the one saved.
import type { Node, ParseError } from "jsonc-parser/lib/esm/main.js";
import { UsageError } from "../errors.js";
import { MAX_CLIENT_CONFIG_DEPTH } from "../limits.js";
import { sanitizeLine } from "../sanitize.js";
import { setOwn } from "../data.js";

export type { Node } from "jsonc-parser/lib/esm/main.js";

/** The file's tree; a file nested past MAX_CLIENT_CONFIG_DEPTH, or not JSON(C), is a UsageError naming it. */
export async function parseClientJson(text: string, file: string): Promise<Node | undefined> {
  // Its ES module build, by path: the package's main is a UMD build whose inner require() calls a bundler cannot
  // follow.
  const { createScanner, parseTree, printParseErrorCode } = await import("jsonc-parser/lib/esm/main.js");
  // The scanner reads tokens in a loop (strings and comments included), so this costs no stack whatever the file.
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token = scanner.scan(); token !== 17 /* EOF */; token = scanner.scan()) {
    if (token === 1 /* { */ || token === 3 /* [ */) {
      if (++depth > MAX_CLIENT_CONFIG_DEPTH)
        throw new UsageError(
          `${sanitizeLine(file)} nests objects and arrays more than ${MAX_CLIENT_CONFIG_DEPTH} deep (at offset ${scanner.getTokenOffset()}): not an MCP client file`,
          "give a Claude, VS Code, Cursor or Windsurf MCP file",
        );
    } else if (token === 2 /* } */ || token === 4 /* ] */) depth--;
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0)
    throw new UsageError(
      `${sanitizeLine(file)} is not JSON: ${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}`,
    );
  return root;
}

/** The value of a node: objects with own properties only (a "__proto__" key is a key), the last copy of a key given
 *  twice. */
export function valueOf(node: Node): unknown {
  switch (node.type) {
    case "object": {
      const object: Record<string, unknown> = {};
      for (const [key, value] of properties(node)) setOwn(object, key, valueOf(value));
      return object;
    }
    case "array":
      return (node.children ?? []).map(valueOf);
    default:
      return node.value;
  }
}

/** An object node's properties, in the file's order, duplicates included. */
export function properties(node: Node): Array<[string, Node]> {
  const found: Array<[string, Node]> = [];
  for (const property of node.children ?? []) {
    const [key, value] = property.children ?? [];
    if (key && value) found.push([String(key.value), value]);
  }
  return found;
}

/** The property `key` of an object node (the last, as its value is), if any. */
export function property(node: Node | undefined, key: string): Node | undefined {
  if (node?.type !== "object") return undefined;
  let found: Node | undefined;
  for (const [name, value] of properties(node)) if (name === key) found = value;
  return found;
}

/** The first key given more than once in this object (only `among` these keys, if given), if any. */
export function twice(node: Node | undefined, among?: readonly string[]): string | undefined {
  if (node?.type !== "object") return undefined;
  const seen = new Set<string>();
  for (const [key] of properties(node)) {
    if (among && !among.includes(key)) continue;
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

/** The first key given twice in any object within `node` (nesting is bounded by parseClientJson). */
export function twiceWithin(node: Node): string | undefined {
  const here = twice(node);
  if (here !== undefined) return here;
  for (const child of node.children ?? []) {
    const below = twiceWithin(child);
    if (below !== undefined) return below;
  }
  return undefined;
}
