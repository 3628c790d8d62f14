// What a process knows of the secrets of the servers it deals with, so that none of them is written anywhere in
// clear: not to stdout or stderr (process-context.ts), not into a handle or the index (store/handles.ts), not into a
// trace (protocol/trace.ts, the broker's trace file). A server's secrets are those of the saved server it is reached
// as (protocol/server.ts: credentialed): the resolved values of the ${env:} references in its headers or environment,
// its literal credential headers, its OAuth tokens and client secrets (auth/store.ts), each in every form it takes in
// text (sanitize.ts: secretForms). A server saved nowhere has none: nothing of the person's is spent on it.
import type { Secrets } from "./context.js";
import {
  credentialed,
  descriptorKey,
  resolveEnvRefs,
  savedServer,
  secretsOf,
  type ServerDescriptor,
} from "./protocol/server.js";
import { secretForms } from "./sanitize.js";
import { isLiteralSecret } from "./secret-names.js";
import type { Settings } from "./store/settings.js";

/** A credential with its scheme ("Bearer <token>"): the token alone is a secret too (a server may echo just that). */
const SCHEMED = /^(?:bearer|basic|token|dpop)\s+(\S+)$/i;

/** What replaces an OAuth token or client secret, and a literal credential header or variable. */
const TOKEN = "[token]";
const SECRET = "[secret]";

/** Adds `secret` (and its token, when it is "<scheme> <token>") in every form, as `ref`. Short values are no secrets. */
export function addSecret(known: Map<string, string>, secret: string | undefined, ref: string): void {
  if (!secret || secret.length < 4) return;
  for (const value of [secret, SCHEMED.exec(secret)?.[1]])
    if (value && value.length >= 4) for (const form of secretForms(value)) if (!known.has(form)) known.set(form, ref);
}

/**
 * The secrets of a process, `known` (the map its streams are redacted by). `settings` may fail (an unreadable
 * settings.json): the server's sign-in is still learnt, by its URL.
 */
export function createSecrets(deps: {
  known: Map<string, string>;
  env: Record<string, string | undefined>;
  home: string;
  settings: () => Promise<Settings>;
}): Secrets {
  const { known, env, home } = deps;
  /** The servers whose saved configuration was learnt (it is read once: tokens, which rotate, each time). */
  const learnt = new Set<string>();
  const saved = async () => {
    try {
      return await deps.settings();
    } catch {
      return undefined;
    }
  };
  const learnConfig = (descriptor: ServerDescriptor, settings: Settings) => {
    const servers = settings.servers();
    const reached = credentialed(descriptor, servers);
    const match = savedServer(descriptor, servers);
    for (const [form, ref] of secretsOf(reached, env)) if (!known.has(form)) known.set(form, ref);
    for (const [name, value] of Object.entries(
      reached.transport === "http" ? (reached.headers ?? {}) : (reached.env ?? {}),
    )) {
      // Resolved values are in by their references (above); a literal one (saved by an older version, which took
      // them) is a secret by the rule `server add` and `server import` refuse it by.
      if (isLiteralSecret(name, value)) addSecret(known, value, SECRET);
      else if (SCHEMED.test(safeResolve(value))) addSecret(known, safeResolve(value), value);
    }
    // A pre-registered client's secret (a reference: auth/provider.ts resolves it), for the server saved so.
    const client = match?.descriptor === reached ? settings.client(match.name) : undefined;
    if (client?.clientSecret) addSecret(known, safeResolve(client.clientSecret), client.clientSecret);
  };
  const safeResolve = (value: string) => {
    try {
      return resolveEnvRefs(value, env);
    } catch {
      return "";
    }
  };
  const learnSignIn = async (url: string) => {
    try {
      const { AuthStore } = await import("./auth/store.js");
      const record = new AuthStore(home).read(url);
      for (const token of [record.tokens?.access_token, record.tokens?.refresh_token, record.tokens?.id_token])
        addSecret(known, token, TOKEN);
      addSecret(known, record.client?.client_secret, TOKEN);
    } catch {
      /* an unreadable sign-in is used by nobody: nothing to learn */
    }
  };
  const learn = async (descriptor: ServerDescriptor) => {
    const key = descriptorKey(descriptor);
    if (!learnt.has(key)) {
      const settings = await saved();
      if (settings) {
        learnConfig(descriptor, settings);
        learnt.add(key);
      }
    }
    if (descriptor.transport === "http") await learnSignIn(descriptor.url);
    return known;
  };
  return {
    known,
    learn,
    async learnSaved() {
      const settings = await saved();
      for (const descriptor of Object.values(settings?.servers() ?? {})) await learn(descriptor);
    },
  };
}
