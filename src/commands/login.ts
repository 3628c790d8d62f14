// `mcp-task login <server>`: signs in to a saved HTTP server (OAuth 2.1: a browser and the loopback redirect, or
// the client-credentials grant of a pre-registered client) and keeps its tokens in the private home.
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Run } from "./run.js";
import { UsageError } from "../errors.js";
import { createPrinter } from "../output/printer.js";
import { sanitizeLine } from "../output/sanitize.js";

export function registerLogin(program: Command, ctx: Context, run: Run): void {
  program
    .command("login")
    .summary("sign in to a saved HTTP server (OAuth)")
    .argument("<server>", "saved server name")
    .option("--no-browser", "print the sign-in address instead of opening a browser")
    .addHelpText("after", "\nExample:\n  mcp-task login remote --no-browser")
    .action((name: string, flags: { browser: boolean }) =>
      run(async () => {
        const url = httpServerUrl(ctx, name);
        const [{ signIn }, { AuthStore }, { openPolicy }] = await Promise.all([
          import("../auth/signin.js"),
          import("../auth/store.js"),
          import("../auth/session.js"),
        ]);
        const printer = createPrinter(ctx.io, false);
        await signIn({
          store: new AuthStore(ctx.home),
          url,
          name,
          client: ctx.settings.client(name),
          env: ctx.env,
          policy: openPolicy(ctx.io, ctx.env, !flags.browser),
          note: (text) => printer.note(text),
          signal: ctx.interrupt,
        });
        printer.note(`signed in to ${name}`);
        return 0;
      }),
    );
}

/** The URL of a saved HTTP server (login and logout take a saved name: tokens go with what the person saved). */
export function httpServerUrl(ctx: Context, name: string): string {
  const descriptor = ctx.settings.server(name);
  if (!descriptor)
    throw new UsageError(
      `unknown server: ${sanitizeLine(name)}`,
      "save it first: mcp-task server add <name> --url <url>",
    );
  if (descriptor.transport !== "http")
    throw new UsageError(`${sanitizeLine(name)} is a stdio server: only HTTP servers sign in`);
  return descriptor.url;
}
