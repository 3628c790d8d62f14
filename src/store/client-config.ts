// Other MCP clients' configuration files, read into mcp-task's saved servers (`mcp-task server import`):
//   Claude Desktop  claude_desktop_config.json   {"mcpServers": {name: {command, args, env} | {url, headers}}}
//   Claude Code     .mcp.json                    {"mcpServers": {name: {type: stdio|http|sse, ...}}}, ${VAR}, ${VAR:-default}
//   VS Code         .vscode/mcp.json             {"servers": {...}, "inputs": [...]}, ${env:VAR}, ${input:id}, ${workspaceFolder}
//                   settings.json                {"mcp": {"servers": {...}}}
//   Cursor          .cursor/mcp.json             {"mcpServers": {...}}, ${env:VAR}, ${userHome}, ${workspaceFolder}
//   Windsurf        mcp_config.json              {"mcpServers": {name: {serverUrl | url, headers} | {command...}}}, ${env:VAR}
//
// A variable in a header or env value becomes mcp-task's `${env:NAME}` reference (resolved only when connecting, only
// for saved servers); one in the server's address (URL, command, arguments) is read at import, as mcp-task keeps an
// address as it is, and refused if its name says secret. A literal secret is never stored: in a stdio server's env
// it becomes a reference to the variable of the same name (the server reads that variable anyway); in a header it is
// refused, with the reason, since no variable name follows from it. Hand-written: each client's variable syntax is
// its own, and no package reads them all.
import { homedir } from "node:os";
import { basename, dirname, resolve } from "node:path";
import { UsageError } from "../errors.js";
import { MAX_IMPORTED_SERVERS } from "../limits.js";
import { sanitizeLine } from "../sanitize.js";
import { isLiteralSecret, isSecretName, looksSecret } from "../secret-names.js";
import { parseClientJson, properties, property, twice, twiceWithin, valueOf, type Node } from "./client-json.js";
import { httpDescriptor, type ServerDescriptor } from "../protocol/server.js";

export interface ImportedServer {
  readonly name: string;
  readonly descriptor: ServerDescriptor;
  /** What the person should know (a variable to set, a default not kept). */
  readonly notes: string[];
}

export interface ClientConfig {
  readonly servers: ImportedServer[];
  /** Servers left out, each with why. */
  readonly refused: Array<{ name: string; reason: string }>;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

// Which header and env values are literal secrets: one rule, with `server add` and the redaction (src/secrets.ts).

/**
 * Reads a client's configuration file text; `file` is its path (workspace variables are relative to it), `env` the
 * environment the variables of a server's address are read from.
 */
export async function readClientConfig(
  text: string,
  file: string,
  env: Record<string, string | undefined>,
): Promise<ClientConfig> {
  // VS Code's files are JSON with comments and trailing commas (JSONC): its own parser reads them (client-json.ts).
  const root = await parseClientJson(text, file);
  const named = sanitizeLine(file);
  // A key that decides which servers are read, given twice, is refused: which one a reader sees is not clear.
  const decisive = twice(root, ["mcpServers", "servers", "mcp", "inputs"]) ?? twice(property(root, "mcp"), ["servers"]);
  if (decisive !== undefined)
    throw new UsageError(
      `${named} gives "${decisive}" twice: which one is meant is not clear, and mcp-task does not guess`,
      `keep one "${decisive}" in the file, then import it again`,
    );
  const data = root ? valueOf(root) : undefined;
  const path = !isObject(data)
    ? undefined
    : data.mcpServers != null
      ? ["mcpServers"]
      : data.servers != null
        ? ["servers"]
        : isObject(data.mcp)
          ? ["mcp", "servers"]
          : undefined;
  const node = path?.reduce<Node | undefined>((at, key) => property(at, key), root);
  if (node?.type !== "object")
    throw new UsageError(
      `${named} has no "mcpServers" or "servers" object`,
      "give a Claude, VS Code, Cursor or Windsurf MCP file",
    );
  const entries = properties(node);
  if (entries.length > MAX_IMPORTED_SERVERS)
    throw new UsageError(
      `${named} lists ${entries.length} servers; mcp-task imports at most ${MAX_IMPORTED_SERVERS} from one file`,
      "split the file, or keep in it the servers you use",
    );
  const counts = new Map<string, number>();
  for (const [name] of entries) counts.set(name, (counts.get(name) ?? 0) + 1);
  const vars = new Variables(file, isObject(data) && Array.isArray(data.inputs) ? data.inputs : [], env);
  const config: ClientConfig = { servers: [], refused: [] };
  const namedTwice = new Set<string>();
  for (const [name, entryNode] of entries) {
    // A name given twice is refused, every copy, and named once: saving the last (as JSON.parse would) saves a server
    // other than the one a reader of the file sees first.
    const times = counts.get(name)!;
    if (times > 1) {
      if (!namedTwice.has(name))
        config.refused.push({
          name,
          reason: `its name is given ${times} times in the file: which one is meant is not clear`,
        });
      namedTwice.add(name);
      continue;
    }
    try {
      const key = twiceWithin(entryNode);
      if (key !== undefined) throw new Refusal(`it gives "${key}" twice: which one is meant is not clear`);
      const entry = valueOf(entryNode);
      if (!isObject(entry)) throw new Refusal("not an object");
      const notes: string[] = [];
      const descriptor = descriptorOf(entry, vars, notes);
      config.servers.push({ name, descriptor, notes });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      config.refused.push({ name, reason: error.message });
    }
  }
  return config;
}

class Refusal extends Error {}

function descriptorOf(entry: Json, vars: Variables, notes: string[]): ServerDescriptor {
  const url =
    typeof entry.url === "string" ? entry.url : typeof entry.serverUrl === "string" ? entry.serverUrl : undefined;
  if (url !== undefined && entry.type !== "stdio") {
    if (entry.type === "sse") notes.push("a legacy HTTP+SSE server: saved by its URL");
    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries(isObject(entry.headers) ? entry.headers : {})) {
      const converted = vars.convert(String(value), notes);
      if (isLiteralSecret(header, converted))
        throw new Refusal(
          `its header ${header} holds a literal secret, which mcp-task does not store: write it as "\${env:NAME}" in the file ` +
            `(or: mcp-task server add <name> --url <url> --header "${header}: \${env:NAME}")`,
        );
      headers[header] = converted;
    }
    try {
      const address = vars.resolve(url, notes);
      // A password in the URL is a secret stored, shown and sent as the address.
      if (URL.canParse(address) && new URL(address).password)
        throw new Refusal('its URL holds a password, which mcp-task does not store: send it in "headers" instead');
      return httpDescriptor(address, headers);
    } catch (error) {
      if (error instanceof Refusal) throw error;
      throw new Refusal((error as Error).message);
    }
  }
  if (typeof entry.command !== "string" || entry.command === "")
    throw new Refusal('it has neither "command" nor "url"');
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(isObject(entry.env) ? entry.env : {})) {
    const converted = vars.convert(String(value), notes);
    if (isLiteralSecret(key, converted)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new Refusal(`its env ${key} holds a literal secret`);
      env[key] = `\${env:${key}}`;
      notes.push(`its ${key} was a literal secret, not stored: set ${key} in the environment`);
    } else env[key] = converted;
  }
  if (entry.envFile !== undefined) notes.push("its envFile is not read: set those variables in the environment");
  return {
    transport: "stdio",
    command: vars.resolve(entry.command, notes),
    args: Array.isArray(entry.args) ? entry.args.map((arg) => vars.resolve(String(arg), notes)) : [],
    ...(Object.keys(env).length > 0 ? { env } : {}),
    ...(typeof entry.cwd === "string" ? { cwd: vars.resolve(entry.cwd, notes) } : {}),
  };
}

/** The variables of the client file formats, turned into `${env:NAME}` references or the paths they name. */
class Variables {
  private readonly workspace: string;
  private readonly inputs = new Map<string, string>();

  constructor(
    file: string,
    inputs: unknown[],
    private readonly env: Record<string, string | undefined>,
  ) {
    // Absolute: `server import .vscode/mcp.json` names the file from the current folder, and a saved server is
    // started from any folder (its dirname would be ".").
    const folder = dirname(resolve(file));
    this.workspace = [".vscode", ".cursor"].includes(basename(folder)) ? dirname(folder) : folder;
    for (const input of inputs)
      if (isObject(input) && typeof input.id === "string")
        this.inputs.set(input.id, typeof input.description === "string" ? input.description : input.id);
  }

  /** A header or env value: variables become `${env:NAME}` references, resolved when connecting. */
  convert(value: string, notes: string[]): string {
    return this.replace(value, notes, (name, fallback) => {
      if (fallback !== undefined) notes.push(`the default of \${${name}:-...} is not kept: set ${name}`);
      return `\${env:${name}}`;
    });
  }

  /**
   * A part of the server's address (URL, command, arguments, folder), which mcp-task keeps as it is: a variable is
   * read now (its value, else its default). One whose name says secret is refused: it belongs in env or a header.
   */
  resolve(value: string, notes: string[]): string {
    return this.replace(value, notes, (name, fallback) => {
      if (isSecretName(name))
        throw new Refusal(`its address uses \${${name}}, a secret: pass it in "env" or "headers" instead`);
      const found = this.env[name] ?? fallback;
      if (found === undefined) throw new Refusal(`its address uses \${${name}}, which is not set`);
      // An address is stored, shown and sent as it is: a value that looks like a secret is refused whatever its name.
      if (looksSecret(found) || looksSecret(found.replace(/^[^=]*=/, "")))
        throw new Refusal(
          `its address uses \${${name}}, whose value looks like a secret: pass it in "env" or "headers" instead`,
        );
      notes.push(`\${${name}} in its address was read as ${JSON.stringify(found)}`);
      return found;
    });
  }

  private replace(value: string, notes: string[], variable: (name: string, fallback?: string) => string): string {
    return value.replace(/\$\{([^}]*)\}/g, (_whole, inner: string) => {
      if (inner === "userHome") return homedir();
      if (inner === "workspaceFolder") return this.workspace;
      const named = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/.exec(inner);
      if (named) return variable(named[1]!, named[2]);
      const input = /^input:(.+)$/.exec(inner);
      if (input) {
        const description = this.inputs.get(input[1]!);
        if (description === undefined)
          throw new Refusal(`it uses \${input:${input[1]}}, which the file's "inputs" do not declare`);
        const name = input[1]!
          .replace(/[^A-Za-z0-9]+/g, "_")
          .replace(/^(\d)/, "_$1")
          .toUpperCase();
        notes.push(`its input "${description}" is read from the environment: set ${name}`);
        return variable(name);
      }
      throw new Refusal(`it uses \${${inner}}, which mcp-task cannot resolve`);
    });
  }
}
