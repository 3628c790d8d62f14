// `mcp-task logout <server|url>`: forgets a server's tokens (a saved server's, or those of a sign-in by URL),
// revoking them where the server offers revocation.
import type { Command } from "commander";
import type { Context } from "../../context.js";
import { createPrinter } from "../../output/printer.js";
import type { Leaf } from "../command.js";
import { sanitizeLine } from "../../sanitize.js";
import { signInTarget } from "./login.js";

export const logout: Leaf<{ name: string }, [string]> = {
  examples: ["mcp-task logout remote", "mcp-task logout https://mcp.example.com/mcp"],
  declare: (parent: Command) =>
    parent
      .command("logout")
      .summary("forget (and revoke) a server's sign-in")
      .argument("<server>", "saved server name, or the server's URL"),
  parse: ([name]) => ({ name }),
  run: (options, ctx) => runLogout(options, ctx),
};

export async function runLogout(options: { name: string }, ctx: Context): Promise<number> {
  const settings = await ctx.loadSettings();
  const target = signInTarget(settings, options.name);
  const { url } = target;
  const name = sanitizeLine(target.name);
  const [{ signOut }, { AuthStore }] = await Promise.all([
    import("../../auth/logout.js"),
    import("../../auth/store.js"),
  ]);
  const out = await signOut(
    new AuthStore(ctx.home),
    url,
    target.saved ? settings.client(target.name) : undefined,
    ctx.env,
  );
  createPrinter(ctx.io, false).note(
    out.unreadable
      ? `removed the saved sign-in of ${name}, which could not be read (${out.unreadable}); nothing was revoked`
      : !out.hadTokens
        ? `not signed in to ${name}`
        : out.refused
          ? `signed out of ${name} (tokens forgotten; revocation not attempted: ${out.refused}, and tokens are sent only over https, or plain http on this machine)`
          : out.revoked
            ? `signed out of ${name} (tokens revoked)`
            : out.revocable
              ? `signed out of ${name} (tokens forgotten; the server did not confirm their revocation)`
              : `signed out of ${name} (tokens forgotten; the server offers no revocation)`,
  );
  return 0;
}
