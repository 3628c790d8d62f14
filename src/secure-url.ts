// The one rule for every address mcp-task hands to a browser (a sign-in's authorization page, a URL-mode
// elicitation's page, the pages a -32042 lists) and every endpoint it sends a token, a code or a client secret to
// (an authorization server's discovery, registration, token and revocation endpoints, the MCP server a token is for):
// `https:`, or `http:` on this machine (127.0.0.0/8, ::1, localhost: RFC 8252 §7.3's loopback exception). Anything
// else (file:, data:, javascript:, a custom scheme, plain http to another host) is refused, before anything is
// registered, sent or opened. What passes is the parsed URL (WHATWG): its `href` is what is opened or fetched, never
// the text it was read from, which another parser may read as another host (`https://example.com\@evil.test/`).
import { cutText, UnsafeUrlError } from "./errors.js";
import { MAX_URL_SHOWN } from "./limits.js";
import { sanitizeLine } from "./sanitize.js";

declare const kept: unique symbol;
/** A URL that keeps the rule (made only by judgeUrl): what may be opened, or sent a secret. */
export type SecureUrl = URL & { readonly [kept]: true };

/** The rule in words, for messages. */
export const SECURE_URL_RULE = "mcp-task opens pages and sends tokens only over https, or plain http on this machine";

/**
 * Loopback names as the URL parser writes them: 127.0.0.0/8 (the parser has already turned `0x7f.1` or `2130706433`
 * into dotted decimal), `[::1]`, and `localhost` exactly. Not `*.localhost` (which the SDK exempts): a proxy or a
 * resolver may send such a name anywhere; nor `[::ffff:127.0.0.1]`.
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

export type Judged = { url: SecureUrl; why?: undefined } | { url?: URL; why: string };

/** Parses an address and says whether it keeps the rule (`why` says how it breaks it). */
export function judgeUrl(raw: string | URL): Judged {
  let url: URL;
  try {
    url = new URL(typeof raw === "string" ? raw : raw.href);
  } catch {
    return { why: "is not a valid URL" };
  }
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname)))
    return { url: url as SecureUrl };
  if (url.protocol === "http:") return { url, why: "is plain http to another host" };
  return { url, why: `is a ${sanitizeLine(url.protocol)} address, not a web page` };
}

/** An address as a message shows it: parsed where it parses, made terminal-safe, cut. */
export function shownUrl(raw: string | URL, judged = judgeUrl(raw)): string {
  return cutText(sanitizeLine(judged.url?.href ?? String(raw)), MAX_URL_SHOWN);
}

/**
 * The address, parsed, when it keeps the rule; else UnsafeUrlError (exit 8) naming it: `what` says whose it is
 * ("demo's authorization page").
 */
export function secureUrl(raw: string | URL, what: string): SecureUrl {
  const judged = judgeUrl(raw);
  if (judged.why === undefined) return judged.url;
  throw new UnsafeUrlError(`${what} ${shownUrl(raw, judged)} ${judged.why}: ${SECURE_URL_RULE}`);
}

export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch that sends nothing to an address breaking the rule (UnsafeUrlError before the request is made): what
 * every request of a sign-in, a refresh and a revocation goes through. It follows no redirect itself: the SDK's
 * auth() follows them one hop at a time (each through here), within the origin; others pass `redirect: "manual"`.
 */
export function secureFetch(next: FetchLike, what: string): FetchLike {
  return (input, init) => next(secureUrl(input, what).href, init);
}
