// What a failed sign-in says: one line naming what failed. Our own errors as they are (the sign-in's fetch keeps the
// first: a timeout or a body past its bound, which the SDK may have gone on past); an address in the metadata that
// is not a URL, named; an answer the SDK's schemas refused, named by its endpoint and the first field wrong (never
// the schema library's dump); any other SDK error as one sanitized line, without the raw body some end with.
import { AuthRequiredError, McpTaskError } from "../errors.js";
import { sanitizeLine } from "../sanitize.js";
import type { AuthNet } from "./net.js";

interface Issue {
  path?: unknown[];
  message?: unknown;
}

export function authFailure(error: unknown, net: AuthNet, o: { name: string; hint: string }): McpTaskError {
  if (error instanceof McpTaskError) return error;
  if (net.failure) return net.failure;
  const name = sanitizeLine(o.name);
  const from = net.last ? ` (from ${net.last})` : "";
  // Node's URL parser: a TypeError with code ERR_INVALID_URL and the string it was given as `input`.
  const invalid = error as { code?: unknown; input?: unknown };
  if (invalid?.code === "ERR_INVALID_URL") {
    const input = sanitizeLine(String(invalid.input ?? "")).slice(0, 200);
    return new AuthRequiredError(
      `cannot sign in to ${name}: its authorization metadata${from} names an address that is not a URL: ${JSON.stringify(input)}`,
      "the server's sign-in is misconfigured: tell its operator",
    );
  }
  // The SDK parses each answer with its schemas (zod): a refusal carries `issues`, each with its path.
  const issues = (error as { issues?: unknown })?.issues;
  if (Array.isArray(issues) && issues.length > 0) {
    const first = issues[0] as Issue;
    const path = Array.isArray(first.path) && first.path.length ? first.path.map(String).join(".") : "the answer";
    const what = typeof first.message === "string" ? first.message : "not valid";
    return new AuthRequiredError(
      `cannot sign in to ${name}: the authorization server's answer${from} is not valid OAuth: ${sanitizeLine(`${path}: ${what}`).slice(0, 200)}`,
      "the authorization server misbehaves: tell its operator",
    );
  }
  // The SDK's errors (OAuthError and the flow's own) carry the authorization server's text: one sanitized line,
  // without the raw body some of them end with (an HTML error page).
  const text = sanitizeLine(error instanceof Error ? error.message : String(error));
  const cut = text.indexOf(" Raw body:");
  return new AuthRequiredError(
    `cannot sign in to ${name}: ${(cut >= 0 ? text.slice(0, cut) : text).slice(0, 500)}`,
    o.hint,
  );
}
