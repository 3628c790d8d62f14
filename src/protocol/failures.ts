// What a failure to reach a server was, named from its cause's code (never its message): refused, no such host, a
// TLS certificate refused, a stdio command not found; an error of our own along the cause chain is kept as it is.
// Used by the HTTP guard (limits.ts) for each request and by connect.ts for the connection as a whole; below, what a
// request's failure means to RawChannel (rpc.ts): a refusal for want of authorization, a lost session, a server error.
import type { ChildProcess } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/client";
import { AuthRequiredError, McpTaskError, ServerError, ServerExitedError, UsageError } from "../errors.js";
import { MAX_ERROR_TEXT, SERVER_STDERR_TAIL_SHOWN } from "../limits.js";
import { sanitizeLine } from "../sanitize.js";
import type { ServerDescriptor } from "./server.js";
import { serverProcess } from "./stdio-sdk.js";

/** What a failure to reach `origin` was, from its cause's code (never its message): refused, no such host, TLS... */
const NETWORK_CAUSES: Record<string, { text: string; transient: boolean; hint?: string }> = {
  ECONNREFUSED: { text: "connection refused", transient: true },
  ECONNRESET: { text: "the connection was reset", transient: true },
  EPIPE: { text: "the connection was reset", transient: true },
  ENOTFOUND: { text: "host not found", transient: true },
  EAI_AGAIN: { text: "host not found (DNS lookup failed)", transient: true },
  ETIMEDOUT: { text: "the connection timed out", transient: true },
  UND_ERR_CONNECT_TIMEOUT: { text: "the connection timed out", transient: true },
  UND_ERR_SOCKET: { text: "the connection closed", transient: true },
  EHOSTUNREACH: { text: "host unreachable", transient: true },
  ENETUNREACH: { text: "network unreachable", transient: true },
  DEPTH_ZERO_SELF_SIGNED_CERT: { text: "its TLS certificate is self-signed", transient: false },
  SELF_SIGNED_CERT_IN_CHAIN: { text: "its TLS certificate chain is self-signed", transient: false },
  CERT_HAS_EXPIRED: { text: "its TLS certificate has expired", transient: false },
  CERT_NOT_YET_VALID: { text: "its TLS certificate is not valid yet", transient: false },
  ERR_TLS_CERT_ALTNAME_INVALID: { text: "its TLS certificate is for another host name", transient: false },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: {
    text: "its TLS certificate is not signed by a trusted authority",
    transient: false,
  },
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: {
    text: "its TLS certificate is not signed by a trusted authority",
    transient: false,
  },
};
const TLS_HINT =
  "if the server's certificate authority is to be trusted, name its certificate in NODE_EXTRA_CA_CERTS=<file.pem>";

/** The first code along an error's cause chain that names a network or TLS failure. */
function networkCause(error: unknown): string | undefined {
  for (
    let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 6;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.code === "string" && NETWORK_CAUSES[e.code]) return e.code;
  }
  return undefined;
}

/**
 * Ports that fetch refuses to connect to at all (the Fetch standard's "bad port" list): a request to one fails before
 * any connection is tried, with no code along its cause chain, so it is told from the URL.
 */
const RESTRICTED_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The port of an http(s) URL fetch will not connect to, if it is one. */
function restrictedPort(url: string): number | undefined {
  try {
    const { port, protocol } = new URL(url);
    if (!/^https?:$/.test(protocol) || port === "") return undefined;
    return RESTRICTED_PORTS.has(Number(port)) ? Number(port) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why `where` cannot be reached, in a person's words, from the error's cause code (or the URL's port): the one place
 * these causes are named, for a request (the HTTP guard, the sign-in's requests) and a connection alike.
 */
function unreachable(error: unknown, where: string, url: string): ServerError | undefined {
  const port = restrictedPort(url);
  if (port !== undefined && !networkCause(error)) {
    return new ServerError(
      `cannot reach ${where}: port ${port} is one that fetch refuses to connect to (a restricted port)`,
      "run the server on another port",
    );
  }
  const code = networkCause(error);
  if (!code) return undefined;
  const cause = NETWORK_CAUSES[code]!;
  const out = new ServerError(
    `cannot reach ${where}: ${cause.text}`,
    cause.transient ? "check that the server is running and the URL is right" : TLS_HINT,
  );
  out.transient = cause.transient;
  return out;
}

/** A failure to reach `origin` named by its cause (a ServerError); any other error as it is. */
export function networkError(error: unknown, origin: string): unknown {
  if ((error as { name?: unknown })?.name === "AbortError") return error;
  return unreachable(error, origin, origin) ?? error;
}

/** The first `code` found along an error's cause chain (fetch wraps ECONNREFUSED two levels deep). */
function causeCode(error: unknown): string | undefined {
  for (
    let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 6;
    e = (e.cause ?? (e as { data?: { cause?: unknown } }).data?.cause) as typeof e, depth++
  ) {
    if (typeof e.code === "string" && /^E[A-Z]+$/.test(e.code)) return e.code;
  }
  return undefined;
}

/** An error of ours along the cause chain (the guard's fetch names a network failure; the SDK wraps it). */
function ownCause(error: unknown): McpTaskError | undefined {
  for (let e = error as { cause?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    if (e instanceof McpTaskError) return e;
  }
  return undefined;
}

/**
 * What a failure to open a connection was, as the user sees it: our own error along the cause chain, else named by
 * its code: a network cause (the words `unreachable` gives every command), a stdio command not found, a server
 * process that exited before answering (`child`: the stdio server, once stopped), a handshake not answered in time
 * (`boundMs`).
 */
export function connectError(
  error: unknown,
  label: string,
  descriptor: ServerDescriptor,
  stderr: string,
  redact: (s: string) => string,
  child?: ChildProcess,
  /** How long the handshake was given in all (the probe's wait, then initialize's), where known. */
  boundMs?: number,
): Error {
  if (error instanceof UsageError) return error;
  const own = ownCause(error);
  if (own) return own;
  if (descriptor.transport === "http") {
    const named = unreachable(error, label, descriptor.url);
    if (named) return Object.assign(named, { message: redact(named.message) });
  }
  const code = causeCode(error);
  const sdkCode = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  const tail = stderrTail(stderr);
  const withTail = (base: string) => (tail ? `${base}; its stderr ends with: ${tail}` : base);
  let text: string;
  if (descriptor.transport === "stdio" && code === "ENOENT") {
    text = `cannot start the server: command not found: ${descriptor.command}`;
  } else if (sdkCode === "REQUEST_TIMEOUT") {
    const ms = boundMs ?? (error as { data?: { timeout?: unknown } }).data?.timeout;
    const within = typeof ms === "number" ? ` within ${Math.round(ms / 1000)} s` : "";
    text = withTail(`the server did not answer initialize${within} (${label})`);
  } else if (descriptor.transport === "stdio" && sdkCode === "CONNECTION_CLOSED" && child && ended(child)) {
    text = withTail(`the server process exited${exitStatus(child)} (${label})`);
  } else {
    text = `cannot connect to ${label}: ${sanitizeLine(message)}${tail ? `; the server's stderr ends with: ${tail}` : ""}`;
  }
  const out = new ServerError(
    redact(text),
    descriptor.transport === "stdio"
      ? "check the command with --stdio, or run it by hand"
      : "check that the server is running and the URL is right",
  );
  // Over HTTP a refused or dropped connection may heal; a protocol-level refusal will not.
  out.transient = descriptor.transport === "http" && code !== undefined;
  return out;
}

/** The process ended by itself: an exit code, or a signal other than those stopServer sends once it closed its output. */
function ended(child: ChildProcess): boolean {
  return child.exitCode !== null || (child.signalCode !== null && !["SIGTERM", "SIGKILL"].includes(child.signalCode));
}

// ---- what a request's failure means (RawChannel, src/protocol/rpc.ts) ----

/** The guard's refusal of a request for want of authorization (HTTP 401/403), along the SDK's cause chain: exit 8,
 *  never a network fault to retry. */
export function authFailure(error: unknown): AuthRequiredError | undefined {
  return alongCauses(error, AuthRequiredError);
}

/** The error, or the first of its causes (five deep), that is a `Class`. */
function alongCauses<T>(error: unknown, Class: abstract new (...args: never[]) => T): T | undefined {
  for (let e = error as { cause?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++)
    if (e instanceof Class) return e;
  return undefined;
}

/** Maps a transport-level failure to a ServerError; network failures are transient. */
export function toServerError(error: unknown, what: string): ServerError {
  const ours = alongCauses(error, ServerError);
  if (ours) return ours;
  const { status, data } = (error ?? {}) as { status?: unknown; data?: { text?: unknown } };
  if (typeof status === "number" && status >= 400) {
    // An HTTP error: its body is the server's text (cut, and made one line; the SDK's message quotes it whole).
    const body = typeof data?.text === "string" ? sanitizeLine(data.text).trim().slice(0, MAX_ERROR_TEXT) : "";
    const out = new ServerError(`the server answered ${what} with HTTP ${status}${body ? `: ${body}` : ""}`);
    out.transient = status >= 500;
    out.cause = error; // its status, for what reads the structure (renegotiable.ts); never printed
    return out;
  }
  const message = error instanceof Error ? error.message : String(error);
  const cause = (error as { cause?: { code?: string } })?.cause?.code ?? (error as { code?: string })?.code;
  const out = new ServerError(`${what} failed: ${cause ? `${cause}: ` : ""}${message}`);
  out.transient = true;
  return out;
}

/**
 * True when an HTTP refusal of a request sent in a session says the session is unknown: 404, as the Streamable HTTP
 * transport specifies for an unknown or expired session, or a 400 whose JSON-RPC error speaks of the session or of
 * a server not initialized. The 400 is what servers built the way the SDK examples are answer (server-everything:
 * "Bad Request: No valid session ID provided"; a restarted single-session SDK server: "Bad Request: Server not
 * initialized"); its text is the only sign they give, so it is read here, and only for a 400 to a request that
 * carried a session id.
 */
export function sessionRefused(error: unknown): boolean {
  const { status, data } = (error ?? {}) as { status?: unknown; data?: { text?: unknown } };
  if (status === 404) return true;
  if (status !== 400 || typeof data?.text !== "string") return false;
  let message: unknown;
  try {
    message = (JSON.parse(data.text) as { error?: { message?: unknown } })?.error?.message;
  } catch {
    return false;
  }
  return typeof message === "string" && /\bsession\b|not initialized/i.test(message);
}

/** Why the connection closed, for the requests that were waiting on it (a stdio server: its stderr's last words). */
export function closeError(
  descriptor: ServerDescriptor,
  label: string,
  transport: Transport,
  stderr: string,
  redact: (text: string) => string,
): ServerError {
  const tail = stderrTail(stderr);
  const child = serverProcess(transport);
  const running = child !== undefined && child.exitCode === null && child.signalCode === null;
  if (descriptor.transport !== "stdio") return new ServerError(redact(withTail(`the connection to ${label} closed`)));
  const base = running
    ? `the server closed its output (${label})`
    : `the server process exited${child ? exitStatus(child) : ""} (${label})`;
  return new ServerExitedError(redact(withTail(base)));

  function withTail(base: string): string {
    return tail ? `${base}; its stderr ends with: ${tail}` : base;
  }
}

/** How a process ended, as words after "exited": its exit code, or the signal that ended it. */
function exitStatus(child: ChildProcess): string {
  if (child.signalCode) return ` on signal ${child.signalCode}`;
  return child.exitCode === null ? "" : ` with code ${child.exitCode}`;
}

/** The last SERVER_STDERR_TAIL_SHOWN characters of a server's stderr, one terminal-safe line ("…" where cut). */
function stderrTail(stderr: string): string {
  const line = sanitizeLine(stderr.trim());
  return line.length > SERVER_STDERR_TAIL_SHOWN ? `…${line.slice(-SERVER_STDERR_TAIL_SHOWN).trimStart()}` : line;
}
