// `mcp-task login <server|url>`: signs in to an HTTP server, saved or given by its URL (OAuth 2.1: a browser and the
// loopback redirect, or the client-credentials grant of a saved server's pre-registered client) and keeps its tokens
// in the private home, by the server's URL.
import { Option, type Command } from "commander";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { createPrinter } from "../../output/printer.js";
import { sanitizeLine, shellValue } from "../../sanitize.js";
import { httpDescriptor, savedServer, type ServerDescriptor } from "../../protocol/server.js";
import type { OAuthClientSettings } from "../../store/settings.js";
import type { Leaf } from "../command.js";
import { withOptions } from "../options.js";

export interface LoginOptions {
  name: string;
  /** False with --no-browser: the sign-in address is printed. */
  browser: boolean;
}

export const login: Leaf<LoginOptions, [string]> = {
  examples: ["mcp-task login remote --no-browser", "mcp-task login https://mcp.example.com/mcp"],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("login")
        .summary("sign in (OAuth) to a server by name or URL")
        .argument("<server>", "saved server name, or the server's URL"),
      new Option("--no-browser", "print the sign-in address instead of opening a browser"),
    ),
  parse: ([name], flags) => ({ name, browser: flags.browser !== false }),
  run: (options, ctx) => runLogin(options, ctx),
};

export async function runLogin(options: LoginOptions, ctx: Context): Promise<number> {
  const settings = await ctx.loadSettings();
  const { name, url, saved } = signInTarget(settings, options.name);
  const client = saved ? settings.client(name) : undefined;
  const [{ signIn }, { AuthStore }, { openPolicy }] = await Promise.all([
    import("../../auth/signin.js"),
    import("../../auth/store.js"),
    import("../../auth/session.js"),
  ]);
  const printer = createPrinter(ctx.io, false);
  const outcome = await signIn({
    store: new AuthStore(ctx.home),
    url,
    name: saved ? name : sanitizeLine(url),
    byUrl: !saved,
    ...(saved ? { addFlags: addFlags(settings.server(name)!, client) } : {}),
    client,
    env: ctx.env,
    policy: openPolicy(ctx.io, ctx.env, !options.browser),
    note: (text) => printer.note(text),
    signal: ctx.interrupt,
  });
  // A server that answers without a token: nothing to sign in to, and nothing wrong (exit 0).
  printer.note(
    outcome === "not-needed"
      ? `${sanitizeLine(name)} asks for no authorization (it answers without a token): nothing to sign in to`
      : `signed in to ${sanitizeLine(name)}`,
  );
  return 0;
}

/**
 * A saved HTTP server's options as `server add` flags, for a hint that saves it again with a client id: every
 * header kept (a \${env:NAME} reference as it is; a literal value, which may be a secret, as <value of NAME> to put
 * back), and the client's options but its id (the hint adds it: --client-id ID).
 */
function addFlags(descriptor: ServerDescriptor, client: OAuthClientSettings | undefined): string {
  if (descriptor.transport !== "http") return "";
  const headers = Object.entries(descriptor.headers ?? {}).map(([name, value]) =>
    shellValue(`${name}: ${/\$\{env:[^}]+\}/.test(value) ? value : `<value of ${name}>`}`),
  );
  return [
    `--url ${shellValue(descriptor.url)}`,
    ...headers.map((header) => `--header ${header}`),
    ...(client?.clientSecret ? [`--client-secret ${shellValue(client.clientSecret)}`] : []),
    ...(client?.clientMetadataUrl ? [`--client-metadata-url ${shellValue(client.clientMetadataUrl)}`] : []),
    ...(client?.scope ? [`--scope ${shellValue(client.scope)}`] : []),
    ...(client?.grant === "client_credentials" ? ["--grant client-credentials"] : []),
  ].join(" ");
}

/**
 * What login and logout act on: a saved HTTP server by name, or a URL (the saved server at that URL, if one is: its
 * sign-in is kept by URL, and one sign-in serves both). `saved`: whether a saved server has it.
 */
export function signInTarget(
  settings: Awaited<ReturnType<Context["loadSettings"]>>,
  given: string,
): { name: string; url: string; saved: boolean } {
  if (/^https?:\/\//i.test(given)) {
    const descriptor = httpDescriptor(given);
    const match = savedServer(descriptor, settings.servers());
    if (match?.descriptor.transport === "http") return { name: match.name, url: match.descriptor.url, saved: true };
    return { name: given, url: (descriptor as { url: string }).url, saved: false };
  }
  return { name: given, url: httpServerUrl(settings, given), saved: true };
}

/** The URL of a saved HTTP server. */
function httpServerUrl(settings: Awaited<ReturnType<Context["loadSettings"]>>, name: string): string {
  const descriptor = settings.server(name);
  if (!descriptor)
    throw new UsageError(
      `unknown server: ${sanitizeLine(name)}`,
      "give a saved server's name, or the server's URL: mcp-task login https://…",
    );
  if (descriptor.transport !== "http")
    throw new UsageError(`${sanitizeLine(name)} is a stdio server: only HTTP servers sign in`);
  return descriptor.url;
}
