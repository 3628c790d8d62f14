// The connect policy: how a command reaches a server (directly, or through a broker that outlives the command), and
// with which credentials. The real process and the tests' in-process context use this one policy.
import type { Clock, Context, IO } from "./context.js";
import { parseDuration } from "./duration.js";
import { UsageError } from "./errors.js";
import {
  credentialed,
  DEFAULT_REQUEST_TIMEOUT_MS,
  describeServer,
  descriptorKey,
  handshakeTimeouts,
  isServerDescriptor,
  secretsOf,
  type ServerDescriptor,
} from "./protocol/server.js";
import { sanitizeLine } from "./sanitize.js";
import { questionKeeperOf, type QuestionHolder, type ResumeToken, type Wire } from "./protocol/wire.js";
import type { Settings } from "./store/settings.js";
import { teeTrace, type Trace } from "./protocol/trace.js";
import { EarlyStdioTransport } from "./protocol/stdio.js";

export interface ConnectDeps {
  /** The mcp-task directory (brokers' sockets and records live under it). */
  home: string;
  env: Record<string, string | undefined>;
  /** The settings (saved servers, verdicts), loaded on first use. */
  settings(): Promise<Settings>;
  /**
   * The secrets of the servers reached so far (value -> its ${env:} reference): filled here, read by whatever
   * redacts what this process writes.
   */
  secrets: Map<string, string>;
  /** Adds to `secrets` those of the saved server a descriptor is reached as, its sign-in's tokens included. */
  learn?: (descriptor: ServerDescriptor) => Promise<unknown>;
  /** How to run mcp-task itself (to start a broker): [node, script]. */
  self: readonly string[];
  /** Who this process is, told to a broker it attaches to (shown to the others while it holds a question). */
  who?: QuestionHolder;
  clock: Clock;
  /** Where a sign-in on demand speaks to the person (src/auth/session.ts). */
  io: IO;
  /** Aborted on Ctrl-C: a sign-in waiting for its redirect stops. */
  interrupt?: AbortSignal;
  /** The wire trace of this process's connections, if one is on (through a broker: what the broker relays). */
  trace?: () => Trace | undefined;
}

/** MCP_TASK_REQUEST_TIMEOUT: how long one request to a server may go unanswered (default 60 s; 0: no limit). */
export function requestTimeoutMs(env: Record<string, string | undefined>): number | undefined {
  const value = env.MCP_TASK_REQUEST_TIMEOUT;
  return value ? parseDuration(value, "MCP_TASK_REQUEST_TIMEOUT") : undefined;
}

/**
 * The context's `connect` (see Context). The MCP SDK and the broker's client are loaded only by commands that talk
 * to a server (start-up of `list`, `--help`...).
 */
export function createConnect(deps: ConnectDeps): Context["connect"] {
  const { home, env, self, clock, who } = deps;
  // The command's trace, if on: a broker relays to it what its connection carries for this command.
  const reach = () => ({ home, env, self, clock, who, trace: deps.trace?.() });
  const broker = () => import("./broker/client.js");
  /**
   * The keeper of a V1 HTTP session (a broker started on demand); its own connection takes a saved server's
   * credentials. Found by the server as it is reached now (credentialed: the saved server's current headers, which a
   * handle does not hold), so that a command, a handle and `server logs` find the same keeper, and one started with
   * headers since changed is not reused.
   */
  const keeper = async (given: Extract<ServerDescriptor, { transport: "http" }>, session: ResumeToken, name?: string) =>
    (await broker()).connectBroker({ ...reach(), descriptor: given, name: name ?? given.url, start: true, session });
  return async (given, name, how = {}) => {
    const settings = await deps.settings();
    // Credentials only for servers the person saved (protocol/server.ts: credentialed).
    const descriptor = credentialed(given, settings.servers());
    // The branches below read `given.transport`: one that is neither "stdio" nor "http" (a planted "Stdio", which
    // credentialed reads as stdio) would take the path of a command line the person typed and start its command.
    if (given.transport !== descriptor.transport || !isServerDescriptor(given))
      throw new UsageError(`not a server: ${sanitizeLine(JSON.stringify(given.transport))} is no transport`);
    for (const [secret, ref] of secretsOf(descriptor, env)) deps.secrets.set(secret, ref);
    await deps.learn?.(descriptor);
    if (how.direct) return direct(deps, settings, descriptor, how, name);
    if (given.transport === "http" && how.resume && questionKeeperOf(how.resume) !== undefined) {
      // A saved task whose questions are handed over once (V1) is reached through the keeper of its session,
      // started on demand: it resumes the session (no new initialize), keeps its streams open and holds the
      // questions no command is there to answer.
      return keeper(descriptor as typeof given, how.resume, name);
    }
    if (given.transport === "http" && how.outlive) {
      // A new task: the session is opened here; where its questions are handed over once, the session's keeper
      // takes it over before the call (this connection closes without ending the session).
      const wire = await direct(deps, settings, descriptor, how, name);
      if (!wire.capabilities.handsQuestionsOnce) return wire;
      const session = wire.resumeToken();
      await wire.close();
      // The keeper makes the call, where nobody can sign in: a step-up it is refused is this command's to do.
      return (await import("./auth/session.js")).withScopeStepUp(
        await keeper(descriptor as typeof given, session, name),
        descriptor,
        authSession(deps, settings),
        env,
      );
    }
    if (given.transport === "stdio" && (how.resume || how.held)) {
      // A stdio server dies with the process that started it: a saved task (and what holds a server's tasks) is
      // reached through the broker that runs it, found by the server's configuration (an address here: nothing is
      // started, nothing resolved; a fresh server would know none of its tasks).
      return (await broker()).connectBroker({
        ...reach(),
        descriptor: given,
        name: name ?? given.command,
        start: false,
      });
    }
    if (descriptor.transport === "stdio" && how.outlive) {
      // Tasks that must outlive the command go through the server's broker, started on demand.
      return (await broker()).connectBroker({ ...reach(), descriptor, name: name ?? descriptor.command, start: true });
    }
    return direct(deps, settings, descriptor, how, name);
  };
}

/** A connection of this process's own (no broker). */
async function direct(
  deps: ConnectDeps,
  settings: Settings,
  descriptor: ServerDescriptor,
  how: Parameters<Context["connect"]>[2] & {},
  name?: string,
): Promise<Wire> {
  const { env, clock } = deps;
  // The broker's own connection (direct): its stdio server's stderr goes to the broker's log (`server logs`).
  const serverStderr =
    how.direct && descriptor.transport === "stdio"
      ? (await import("./protocol/stdio-sdk.js")).stderrToLog((text) => deps.io.stderr.write(text))
      : undefined;
  // A stdio server whose generation is known starts now, and boots while the SDK loads (protocol/stdio.ts). Its
  // transport is in the start-up bundle: imported as a lazy module, the server started only after Node's module
  // loader for ES modules was set up (~20 ms, once per process), which it now does while the server boots.
  const prestarted =
    descriptor.transport === "stdio" && !how.resume && settings.verdict(descriptorKey(descriptor), clock.now())
      ? new EarlyStdioTransport(descriptor, env)
      : undefined;
  how.meanwhile?.();
  // A stdio server that does not answer at once: said to a person while waiting, with how long the wait may last (a
  // server that never answers was waited on in silence for 70 s). Not into a pipe or log, where the error says it
  // all at the end, nor for a broker's own connection.
  const waiting =
    descriptor.transport === "stdio" && !how.direct && deps.io.stderrIsTTY
      ? slowStartNote(deps, name ?? describeServer(descriptor), handshakeBoundMs(env, prestarted !== undefined))
      : undefined;
  // A saved HTTP server's sign-in (its token, refresh, sign-in on demand) goes with it: src/auth/session.ts. A
  // broker's own connection (direct) has no person to sign in.
  const connecting = (await import("./auth/session.js")).connectSignedIn(descriptor, {
    session: { ...authSession(deps, settings), broker: how.direct === true },
    prestarted,
    env,
    name,
    requestTimeoutMs: requestTimeoutMs(env),
    resume: how.resume,
    // A broker's own connection tells its generation to every command it serves, and a new task's connection
    // decides who keeps its questions (connect above): their generation is checked at the start.
    checkVerdict: how.direct === true || how.outlive === true,
    // Sampling is declared where a reply can come: from this command (a person, --sampling-reply), or later, from
    // the process that keeps the question (a broker's own connection; a task's session, handed to its keeper).
    sampling: how.direct === true || how.outlive === true || how.sampling === true,
    trace: teeTrace(deps.trace?.(), how.trace),
    serverStderr,
    verdicts: {
      get: (key) => settings.verdict(key, clock.now()),
      set: (key, verdict) => settings.saveVerdict(key, verdict, clock.now()),
      delete: (key) => settings.forgetVerdict(key),
    },
  });
  return waiting ? connecting.finally(waiting) : connecting;
}

/** How long a stdio server's handshake may take in all: the probe's wait (none when its generation is known), then
 *  initialize's (protocol/server.ts: handshakeTimeouts). */
function handshakeBoundMs(env: Record<string, string | undefined>, known: boolean): number {
  const { probe, connect } = handshakeTimeouts("stdio", requestTimeoutMs(env) ?? DEFAULT_REQUEST_TIMEOUT_MS);
  return (known ? 0 : probe) + connect;
}

/**
 * Says on stderr, once SLOW_START_NOTE_MS have passed without the connection, that the server has not answered
 * initialize yet and how long it will be waited for; the returned function, called once connected (or failed),
 * cancels it.
 */
function slowStartNote(deps: ConnectDeps, label: string, boundMs: number): () => void {
  const stop = new AbortController();
  void deps.clock.sleep(SLOW_START_NOTE_MS, stop.signal).then(() => {
    if (stop.signal.aborted) return;
    deps.io.stderr.write(
      `mcp-task: ${sanitizeLine(label)} has not answered initialize yet; waiting up to ${Math.round(boundMs / 1000)} s in all\n`,
    );
  });
  return () => stop.abort();
}

/** How long a stdio server may take to answer before the command says that it waits (slowStartNote). */
const SLOW_START_NOTE_MS = 3_000;

/** What a sign-in on demand needs of this process (src/auth/session.ts). */
function authSession(deps: ConnectDeps, settings: Settings) {
  return { home: deps.home, settings, io: deps.io, secrets: deps.secrets, signal: deps.interrupt };
}
