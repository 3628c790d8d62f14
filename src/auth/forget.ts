// Forgetting a sign-in that no saved server uses: tokens are spent only on a server the person saved
// (protocol/server.ts: credentialed), and a sign-in outlives neither the server it was made for nor its URL's last
// saved name (`server remove`; `server add` of a URL none uses, which finds one left by a removed server or a name
// moved elsewhere; one a person made by URL, `login <url>`, is kept by `server add` of that URL). Local only: nothing is revoked (`mcp-task logout` revokes, while the server is saved).
import { sameServer, type ServerDescriptor } from "../protocol/server.js";
import { AuthStore } from "./store.js";

export interface Forgotten {
  /** A saved server at the same URL, whose sign-in it is too: then nothing is forgotten. */
  keptFor?: string;
  /** Whether a sign-in was there and is forgotten (tokens, or a record that could not be read). */
  forgot: boolean;
  /** A sign-in a person made for the URL itself (`login <url>`), kept for the server now saved there. */
  adopted?: boolean;
}

export async function forgetUnusedSignIn(
  home: string,
  servers: Record<string, ServerDescriptor>,
  url: string,
  /** `server add`: a sign-in made by URL is the person's for that URL, and the server saved there keeps it. */
  how: { adoptByUrl?: boolean } = {},
): Promise<Forgotten> {
  const at: ServerDescriptor = { transport: "http", url };
  const keptFor = Object.keys(servers).find((name) => sameServer(servers[name]!, at));
  if (keptFor !== undefined) return { keptFor, forgot: false };
  const store = new AuthStore(home);
  if (how.adoptByUrl && readable(store, url)?.byUrl && readable(store, url)?.tokens)
    return { forgot: false, adopted: true };
  const { hadTokens, unreadable } = await store.remove(url);
  return { forgot: hadTokens || unreadable !== undefined };
}

function readable(store: AuthStore, url: string) {
  try {
    return store.read(url);
  } catch {
    return undefined; // unreadable: removed (AuthStore.remove says why)
  }
}
