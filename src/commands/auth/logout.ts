// `mcp-task logout <server>`: forgets a saved server's tokens, revoking them where the server offers revocation.
import type { Command } from "commander";
import type { Context } from "../../context.js";
import { createPrinter } from "../../output/printer.js";
import type { Leaf } from "../command.js";
import { httpServerUrl } from "./login.js";

export const logout: Leaf<{ name: string }, [string]> = {
  declare: (parent: Command) =>
    parent
      .command("logout")
      .summary("forget (and revoke) a saved server's sign-in")
      .argument("<server>", "saved server name")
      .addHelpText("after", "\nExample:\n  mcp-task logout remote"),
  parse: ([name]) => ({ name }),
  run: (options, ctx) => runLogout(options, ctx),
};

export async function runLogout({ name }: { name: string }, ctx: Context): Promise<number> {
  const settings = await ctx.loadSettings();
  const url = httpServerUrl(settings, name);
  const [{ signOut }, { AuthStore }] = await Promise.all([
    import("../../auth/logout.js"),
    import("../../auth/store.js"),
  ]);
  const out = await signOut(new AuthStore(ctx.home), url, settings.client(name), ctx.env);
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
