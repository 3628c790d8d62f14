// URL-mode elicitation (MCP 2025-11-25): the server asks the person to open a web page (a sign-in to a third party,
// an API key, a payment) that mcp-task never sees the inside of. Here: reading the address so that a person sees
// where it leads (scheme and host on their own, warnings for plain http, IP addresses, punycode and user names
// before the host), the consent rule (a person says yes, or the host was named ahead with --open-url), and a
// call refused with -32042 (URLElicitationRequiredError) retried once its pages were visited.
import { domainToUnicode } from "node:url";
import { cutText, InputRequiredError, RpcError, UnsafeUrlError } from "../errors.js";
import { MAX_URL_ELICITATION_ROUNDS, MAX_URL_SHOWN } from "../limits.js";
import { sanitize, sanitizeLine, shellValue, shellWord } from "../sanitize.js";
import { judgeUrl, SECURE_URL_RULE } from "../secure-url.js";
import type { Clock } from "../model.js";
import type { InputRequest, InputResponse, Unsubscribe, Wire } from "../protocol/wire.js";
import { inputUnavailable, type InputProvider } from "./input.js";

/** JSON-RPC error code of URLElicitationRequiredError (2025-11-25). */
export const URL_ELICITATION_REQUIRED = -32042;

/** A URL-mode elicitation's address as a person should see it. */
export interface UrlView {
  /** The whole address, made safe and cut (MAX_URL_SHOWN). */
  readonly shown: string;
  /** `https://host:port`, or "" when the address does not parse. */
  readonly origin: string;
  /** The host name as the URL parser reads it (lower case, punycode), or "". */
  readonly host: string;
  /** The address as parsed (what is opened: never the server's text), or "" when it does not parse. */
  readonly href: string;
  /** Only addresses that keep src/secure-url.ts's rule are opened: https, or plain http on this machine. */
  readonly openable: boolean;
  readonly warnings: readonly string[];
}

export function isUrlRequest(request: InputRequest): boolean {
  return request.method === "elicitation/create" && request.params.mode === "url";
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** Reads a server's URL: never trusted, only parsed (WHATWG URL) and shown. */
export function viewUrl(raw: unknown): UrlView {
  const text = typeof raw === "string" ? raw : "";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return {
      shown: cutText(sanitizeLine(text), MAX_URL_SHOWN),
      origin: "",
      host: "",
      href: "",
      openable: false,
      warnings: ["not a valid URL: it is not opened"],
    };
  }
  const warnings: string[] = [];
  const web = url.protocol === "https:" || url.protocol === "http:";
  const judged = judgeUrl(url);
  if (judged.why !== undefined) warnings.push(`the address ${judged.why}: it is not opened`);
  else if (url.protocol === "http:") warnings.push("not https: what you type there travels unencrypted");
  const host = url.hostname;
  if (IPV4.test(host) || host.startsWith("[")) warnings.push("the host is an IP address, not a name");
  if (host.split(".").some((label) => label.startsWith("xn--")))
    warnings.push(
      `the host is punycode: it displays as "${sanitizeLine(domainToUnicode(host))}", which may imitate another name`,
    );
  if (url.username || url.password)
    warnings.push("the address carries a user name before the host: the host is what follows the @");
  return {
    shown: cutText(sanitizeLine(url.href), MAX_URL_SHOWN),
    origin: web ? `${url.protocol}//${url.host}` : "",
    host,
    href: url.href,
    openable: judged.why === undefined,
    warnings,
  };
}

/**
 * A URL request as a person is shown it: mcp-task's head line, what the server says (display-safe, may hold line
 * breaks: shown quoted), and where the page is with the warnings, one line each.
 */
export function urlQuestion(request: InputRequest): { head: string; message: string; facts: string[] } {
  const view = viewUrl(request.params.url);
  return {
    head: "The server asks you to open a web page (URL-mode elicitation).",
    message: typeof request.params.message === "string" ? cutText(sanitize(request.params.message)) : "",
    facts: [`host: ${view.origin || "(none)"}`, `url:  ${view.shown}`, ...view.warnings.map((w) => `warning: ${w}`)],
  };
}

/** The lines that present a URL request to a person: what the server says, where the page is, the warnings. */
export function describeUrlRequest(request: InputRequest): string[] {
  const { head, message, facts } = urlQuestion(request);
  return [head, ...(message ? [message] : []), ...facts];
}

/** Hosts named ahead (--open-url, MCP_TASK_OPEN_URL_HOSTS), as given: a name, or name:port. */
export function hostsFrom(flags: readonly string[], env: string | undefined): string[] {
  return [...flags, ...(env ?? "").split(/[\s,]+/)].map((h) => h.trim().toLowerCase()).filter(Boolean);
}

/** Whether a host named ahead covers this address (its host name, or its host and port). */
export function preConsented(hosts: readonly string[], view: UrlView): boolean {
  if (!view.openable) return false;
  const hostPort = view.origin.replace(/^https?:\/\//, "");
  return hosts.some((h) => h === view.host || h === hostPort);
}

export interface UrlPolicy {
  /** Hosts named ahead: their pages are opened without asking. */
  readonly hosts: readonly string[];
  /** The inner provider asks a person (prompt, live view, dashboard): it shows the consent question. */
  readonly person: boolean;
  /** --decline: every question, a URL one included, is declined. */
  readonly decline?: boolean;
  /** Opens the page (`url`: the address as parsed and judged) in the browser, or prints it where nothing can. */
  open(url: string, view: UrlView): Promise<void>;
}

function consentHint(view: UrlView, taskId: string | null): string {
  const host = shellValue(view.host || "HOST");
  return taskId
    ? `open it with consent: mcp-task respond --open-url ${host} ${shellWord(taskId)}  (or --decline)`
    : `call again with --open-url ${host} (or --decline)`;
}

/**
 * Serves URL-mode requests around another provider: a page is opened only once a person said yes (the inner
 * provider asks them) or its host was named ahead; with nobody to ask, exit 6 with the question kept by whoever holds
 * it. Other requests go to the inner provider.
 */
export function urlAware(inner: InputProvider, policy: UrlPolicy): InputProvider {
  return {
    // Always: with nobody to ask, the question is still received, to be refused with what it asks (a page on which
    // host, and the --open-url hint) and kept by whoever holds it (the broker) for a later command.
    available: true,
    sampling: inner.sampling,
    answer: async (request, taskId, signal) => {
      if (!isUrlRequest(request)) {
        // What the engine would have said had the question not been let in (see `available`).
        if (!inner.available)
          throw inputUnavailable(
            taskId,
            typeof request.params.message === "string" ? request.params.message : undefined,
            request,
          );
        return inner.answer(request, taskId, signal);
      }
      if (policy.decline) return { action: "decline" };
      const view = viewUrl(request.params.url);
      // Nothing a browser should be handed: refused (exit 8) before anyone is asked, whoever is there.
      if (!view.openable) throw unsafePage(request, view, taskId);
      let response: InputResponse = { action: "accept", content: {} };
      if (!preConsented(policy.hosts, view)) {
        if (!policy.person)
          throw new InputRequiredError(
            `the server asks to open a web page on ${view.origin} and no one consented: ${describeUrlRequest(request).slice(1).map(sanitizeLine).join(" · ")}`,
            consentHint(view, taskId),
            taskId,
          );
        response = await inner.answer(request, taskId, signal);
      }
      // The address as parsed and judged, never the server's text (another parser may read it as another host).
      if (response.action === "accept") await policy.open(view.href, view);
      // URL mode's accept carries no content (the page takes what it needs).
      return response.action === "accept" ? { action: "accept", content: {} } : response;
    },
  };
}

function unsafePage(request: InputRequest, view: UrlView, taskId: string | null): UnsafeUrlError {
  const why = judgeUrl(String(request.params.url)).why ?? "is not a valid URL";
  return new UnsafeUrlError(
    `the server asks to open a page whose address ${why}: ${SECURE_URL_RULE}: ${describeUrlRequest(request).slice(1).map(sanitizeLine).join(" · ")}`,
    taskId ? `decline it: mcp-task respond --decline ${shellWord(taskId)}` : undefined,
    taskId,
  );
}

/** The `notifications/elicitation/complete` a wire hears: the elicitation ids the server says are done. */
export class UrlCompletions {
  private readonly done = new Set<string>();
  private readonly waiters = new Set<() => void>();

  /** Stops hearing them. */
  readonly release: Unsubscribe;

  constructor(private readonly wire: Wire) {
    this.release = wire.on("elicitationComplete", (id) => {
      this.done.add(id);
      for (const wake of this.waiters) wake();
    });
  }

  /** Resolves true once every id is done, false after `ms` (on the clock) or when `signal` aborts. */
  async waitAll(ids: readonly string[], ms: number, clock: Clock, signal?: AbortSignal): Promise<boolean> {
    const all = () => ids.every((id) => this.done.has(id));
    // Where no completion can come, the pages' having been opened is all there is to wait for.
    if (all() || !this.wire.capabilities.hearsElicitationComplete) return true;
    const stop = new AbortController();
    const check = () => all() && stop.abort();
    const abort = () => stop.abort();
    this.waiters.add(check);
    signal?.addEventListener("abort", abort, { once: true });
    try {
      await clock.sleep(ms, stop.signal);
      return all();
    } finally {
      this.waiters.delete(check);
      signal?.removeEventListener("abort", abort);
    }
  }
}

/** The URL elicitations a -32042 error lists (malformed entries left out), or undefined for any other error. */
export function urlElicitationsOf(error: unknown): InputRequest[] | undefined {
  if (!(error instanceof RpcError) || error.rpcCode !== URL_ELICITATION_REQUIRED) return undefined;
  const list = (error.data as { elicitations?: unknown } | undefined)?.elicitations;
  if (!Array.isArray(list)) return [];
  return list
    .filter(
      (e): e is Record<string, unknown> =>
        !!e && typeof e === "object" && typeof e.url === "string" && typeof e.elicitationId === "string",
    )
    .map((e) => ({
      key: `url:${e.elicitationId as string}`,
      method: "elicitation/create",
      params: { ...e, mode: "url" },
    }));
}

function pagesNeeded(requests: InputRequest[], why: string): InputRequiredError {
  const pages = requests.map((r) => viewUrl(r.params.url));
  const hosts = [...new Set(pages.map((p) => p.host).filter(Boolean))];
  return new InputRequiredError(
    `the tool needs web pages visited first (URLElicitationRequiredError), ${why}: ${pages.map((p) => p.shown).join(", ")}`,
    `call again with ${hosts.map((h) => `--open-url ${shellValue(h)}`).join(" ") || "--open-url HOST"} (consent to open them)`,
    null,
  );
}

/**
 * A call the server refuses with -32042: each listed page is put to the person (or the hosts named ahead), opened,
 * and once the server says each is done (`notifications/elicitation/complete`), the call is made again, at most
 * MAX_URL_ELICITATION_ROUNDS times. Declined, or not done within `waitMs`: exit 6, the pages listed.
 */
export async function callAfterUrlElicitations<T>(
  call: () => Promise<T>,
  ask: (request: InputRequest) => Promise<InputResponse>,
  completions: UrlCompletions,
  wait: { ms: number; clock: Clock; signal?: AbortSignal },
): Promise<T> {
  for (let round = 0; ; round++) {
    try {
      return await call();
    } catch (error) {
      const requests = urlElicitationsOf(error);
      if (!requests || requests.length === 0 || round >= MAX_URL_ELICITATION_ROUNDS) throw error;
      // Every page judged before any is put to the person or opened: one refused refuses the call (exit 8).
      for (const request of requests) {
        const view = viewUrl(request.params.url);
        if (!view.openable) throw unsafePage(request, view, null);
      }
      for (const request of requests) {
        const response = await ask(request);
        if (response.action !== "accept")
          throw pagesNeeded(requests, `and one was ${response.action === "decline" ? "declined" : "cancelled"}`);
      }
      const ids = requests.map((r) => r.params.elicitationId as string);
      if (!(await completions.waitAll(ids, wait.ms, wait.clock, wait.signal)))
        throw pagesNeeded(requests, `and the server did not say they were done within ${Math.round(wait.ms / 1000)} s`);
    }
  }
}
