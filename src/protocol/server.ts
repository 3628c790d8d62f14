// What a server is: a stdio command line or a Streamable HTTP URL. Secrets are kept as `${env:NAME}`
// references and resolved only when connecting.
import { isDeepStrictEqual } from "node:util";
import { parse as parseShell } from "shell-quote";
import { UsageError } from "../errors.js";
import { sha256Hex } from "../hash.js";
import { secretForms } from "../sanitize.js";
import { PROBE_MAX_TIMEOUT_MS, PROBE_MIN_TIMEOUT_MS } from "../limits.js";

/** How long a request may go unanswered unless MCP_TASK_REQUEST_TIMEOUT says otherwise (the SDK's own default). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/**
 * How long the handshake (version probe, then `initialize`) may wait: the handshake timeout, else the request
 * timeout; the probe over HTTP at least PROBE_MIN_TIMEOUT_MS (a probe that times out there fails the connection, and
 * a loaded machine's first reply can take over a second; over stdio it means legacy), and at most
 * PROBE_MAX_TIMEOUT_MS. `initialize` waits at least PROBE_MIN_TIMEOUT_MS on either transport: over stdio it waits on
 * the server's start (a `node` or `npx` server took over 2 s on a loaded machine), which a short request timeout
 * (MCP_TASK_REQUEST_TIMEOUT=2s, meant for requests to a running server) must not cut short. Here, apart from the
 * SDK, so that a command can say how long it will wait (src/connections.ts) before the SDK is loaded.
 */
export function handshakeTimeouts(
  transport: ServerDescriptor["transport"],
  timeoutMs: number,
): { probe: number; connect: number } {
  const probe = Math.min(timeoutMs || PROBE_MAX_TIMEOUT_MS, PROBE_MAX_TIMEOUT_MS);
  return {
    probe: transport === "http" ? Math.max(probe, PROBE_MIN_TIMEOUT_MS) : probe,
    connect: Math.max(timeoutMs || 30_000, PROBE_MIN_TIMEOUT_MS),
  };
}

export type ServerDescriptor =
  | { transport: "stdio"; command: string; args: string[]; env?: Record<string, string>; cwd?: string }
  | { transport: "http"; url: string; headers?: Record<string, string> };

const isStringRecord = (v: unknown): v is Record<string, string> =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  Object.values(v as Record<string, unknown>).every((x) => typeof x === "string");

/**
 * Whether a value read from a file (a handle, settings) is a ServerDescriptor, field by field: code below branches
 * on `transport`, and a value that is neither "stdio" nor "http" (a planted "Stdio") once took a path meant for a
 * command line the person typed, and started the handle's command.
 */
export function isServerDescriptor(value: unknown): value is ServerDescriptor {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const d = value as Record<string, unknown>;
  if (d.transport === "http")
    return typeof d.url === "string" && (d.headers === undefined || isStringRecord(d.headers));
  return (
    d.transport === "stdio" &&
    typeof d.command === "string" &&
    Array.isArray(d.args) &&
    d.args.every((arg) => typeof arg === "string") &&
    (d.env === undefined || isStringRecord(d.env)) &&
    (d.cwd === undefined || typeof d.cwd === "string")
  );
}

/** Splits a `--stdio "<command line>"` the way a POSIX shell would, refusing shell operators. */
export function parseCommandLine(line: string): { command: string; args: string[] } {
  const words: string[] = [];
  for (const part of parseShell(line, (name) => `$${name}`)) {
    if (typeof part !== "string") {
      throw new UsageError(
        `the stdio command line may not contain shell operators: ${line}`,
        "quote the argument, or wrap the server in a script",
      );
    }
    words.push(part);
  }
  const [command, ...args] = words;
  if (!command) throw new UsageError("the stdio command line is empty", 'pass --stdio "node server.js"');
  return { command, args };
}

export function httpDescriptor(url: string, headers?: Record<string, string>): ServerDescriptor {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`not a valid URL: ${url}`, "give an http:// or https:// URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`not an http(s) URL: ${url}`, "give an http:// or https:// URL");
  }
  return { transport: "http", url: parsed.toString(), ...(headers && Object.keys(headers).length ? { headers } : {}) };
}

/** Parses `Name: value` header flags. */
export function parseHeaders(values: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf(":");
    if (at <= 0) throw new UsageError(`not a header: ${value}`, 'write it as --header "Name: value"');
    headers[value.slice(0, at).trim()] = value.slice(at + 1).trim();
  }
  return headers;
}

/** Parses `KEY=VALUE` env flags. */
export function parseEnvPairs(values: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf("=");
    if (at <= 0) throw new UsageError(`not an environment assignment: ${value}`, "write it as --env KEY=VALUE");
    env[value.slice(0, at)] = value.slice(at + 1);
  }
  return env;
}

const ENV_REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Replaces `${env:NAME}` references with their values; a missing variable is a usage error. */
export function resolveEnvRefs(value: string, env: Record<string, string | undefined>): string {
  return value.replace(ENV_REF, (_, name: string) => {
    const resolved = env[name];
    if (resolved === undefined)
      throw new UsageError(`environment variable ${name} is not set`, `export ${name}=... before running mcp-task`);
    return resolved;
  });
}

/** The secrets a descriptor resolves (values of the variables its headers or env reference), each with its reference. */
export function secretsOf(descriptor: ServerDescriptor, env: Record<string, string | undefined>): Map<string, string> {
  const values =
    descriptor.transport === "http" ? Object.values(descriptor.headers ?? {}) : Object.values(descriptor.env ?? {});
  const secrets = new Map<string, string>();
  for (const value of values) {
    for (const match of value.matchAll(ENV_REF)) {
      const secret = env[match[1]];
      // Shorter values would redact ordinary text (and hardly are secrets).
      if (secret && secret.length >= 4) for (const form of secretForms(secret)) secrets.set(form, match[0]);
    }
  }
  return secrets;
}

/** Replaces resolved secrets with their references again, for messages that may echo them. */
export function redactSecrets(
  text: string,
  descriptor: ServerDescriptor,
  env: Record<string, string | undefined>,
): string {
  return redactWith(text, secretsOf(descriptor, env));
}

export function redactWith(text: string, secrets: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [secret, ref] of secrets) if (out.includes(secret)) out = out.split(secret).join(ref);
  return out;
}

/** Whether `text` holds any of `secrets` (a search per form: what redactWith does before it copies). */
export function mentionsAny(text: string, secrets: ReadonlyMap<string, string>): boolean {
  for (const secret of secrets.keys()) if (text.includes(secret)) return true;
  return false;
}

/**
 * A JSON value with every string in it (keys too) redacted of `secrets`: a copy, its structure intact (redacting its
 * JSON text could cut across a quote). Strings holding JSON text hold a secret escaped: secretForms has those forms.
 */
export function redactValue<T>(value: T, secrets: ReadonlyMap<string, string>): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redactWith(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== "object" || v === null) return v;
    // fromEntries defines each key as its own property ("__proto__" included, as JSON.parse does).
    return Object.fromEntries(Object.entries(v).map(([key, item]) => [redactWith(key, secrets), walk(item)]));
  };
  return walk(value) as T;
}

/** A stable key for a server's identity (what the generation verdict is cached under). */
export function descriptorKey(descriptor: ServerDescriptor): string {
  const identity =
    descriptor.transport === "http"
      ? ["http", descriptor.url]
      : ["stdio", descriptor.command, ...descriptor.args, descriptor.cwd ?? ""];
  return sha256Hex(JSON.stringify(identity)).slice(0, 32);
}

/** A short human label: the URL, or the command line. */
export function describeServer(descriptor: ServerDescriptor): string {
  return descriptor.transport === "http" ? descriptor.url : [descriptor.command, ...descriptor.args].join(" ");
}

/** The same server: the same URL, or the same command line in the same directory (headers and environment aside). */
export function sameServer(a: ServerDescriptor, b: ServerDescriptor): boolean {
  return descriptorKey(a) === descriptorKey(b);
}

/** A descriptor without what could carry or spend credentials: no headers, no environment. */
export function withoutCredentials(descriptor: ServerDescriptor): ServerDescriptor {
  if (descriptor.transport === "http") return { transport: "http", url: descriptor.url };
  return {
    transport: "stdio",
    command: descriptor.command,
    args: descriptor.args,
    ...(descriptor.cwd !== undefined ? { cwd: descriptor.cwd } : {}),
  };
}

/**
 * A server as a handle names it: an HTTP server by its URL alone (its headers are the saved server's, read when it is
 * reached); a stdio server as configured (its broker is found by its whole configuration), whose environment holds
 * `${env:}` references or values that are not secrets (`server add` and `server import` refuse literal ones).
 */
export function forHandle(descriptor: ServerDescriptor): ServerDescriptor {
  return descriptor.transport === "http" ? withoutCredentials(descriptor) : descriptor;
}

/** The saved server a descriptor is: the one saved exactly so, else the one at the same address; undefined if none. */
export function savedServer(
  descriptor: ServerDescriptor,
  saved: Record<string, ServerDescriptor>,
): { name: string; descriptor: ServerDescriptor } | undefined {
  const entries = Object.entries(saved);
  const found =
    entries.find(([, s]) => isDeepStrictEqual(s, descriptor)) ?? entries.find(([, s]) => sameServer(s, descriptor));
  return found && { name: found[0], descriptor: found[1] };
}

/**
 * What a server is reached with. Its credentials (headers, environment, and the ${env:} references in them) are
 * the person's to spend only on a server the person saved: a descriptor no saved server has (from an imported
 * handle, or a file planted in the store) is reached without any, so that it can never carry credentials of its own
 * nor make mcp-task resolve the person's environment and send it elsewhere. A saved server's current credentials
 * are used for an HTTP server (a rotated token reaches old tasks too); a stdio server's environment only as saved
 * exactly (its broker is found by its whole configuration). Descriptors typed on the command line (`-s <url>`,
 * `--stdio`) have none to lose.
 */
export function credentialed(descriptor: ServerDescriptor, saved: Record<string, ServerDescriptor>): ServerDescriptor {
  const match = savedServer(descriptor, saved);
  if (match && (descriptor.transport === "http" || isDeepStrictEqual(match.descriptor, descriptor)))
    return match.descriptor;
  return withoutCredentials(descriptor);
}
