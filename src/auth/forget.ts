// Forgetting a sign-in that no saved server uses: tokens are spent only on a server the person saved
// (protocol/server.ts: credentialed), and a sign-in outlives neither the server it was made for nor its URL's last
// saved name (`server remove`; `server add` of a URL none uses, which finds one left by a removed server or a name
// moved elsewhere). Local only: nothing is revoked (`mcp-task logout` revokes, while the server is saved).
import { sameServer, type ServerDescriptor } from "../protocol/server.js";
import { AuthStore } from "./store.js";

export interface Forgotten {
  /** A saved server at the same URL, whose sign-in it is too: then nothing is forgotten. */
  keptFor?: string;
  /** Whether a sign-in was there and is forgotten (tokens, or a record that could not be read). */
  forgot: boolean;
}

export async function forgetUnusedSignIn(
  home: string,
  servers: Record<string, ServerDescriptor>,
  url: string,
): Promise<Forgotten> {
  const at: ServerDescriptor = { transport: "http", url };
  const keptFor = Object.keys(servers).find((name) => sameServer(servers[name]!, at));
  if (keptFor !== undefined) return { keptFor, forgot: false };
  const { hadTokens, unreadable } = await new AuthStore(home).remove(url);
  return { forgot: hadTokens || unreadable !== undefined };
}
