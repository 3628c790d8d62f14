// The SDK's OAuthClientProvider over our AuthStore: what `auth()` (discovery, registration, PKCE, token exchange,
// refresh) reads and saves. The SDK does the protocol; this class only says where things are kept and how a person
// is sent to the authorization page.
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { resolveEnvRefs } from "../protocol/server.js";
import { secureUrl } from "../secure-url.js";
import type { OAuthClientSettings } from "../store/settings.js";
import { boundedRecord } from "./record.js";
import type { AuthRecord, AuthStore } from "./store.js";

/** A person signing in now: where the browser comes back to, the state it must bring, and how to send it there. */
export interface Interactive {
  redirectUrl: string;
  state: string;
  open(url: URL): Promise<void>;
}

/**
 * What a sign-in made anew has discovered, registered and been given, kept in memory until its tokens come: then
 * all of it is saved in one write. Until then the saved sign-in stands as it was, and commands go on using it: a
 * sign-in interrupted (Ctrl-C, LOGIN_WAIT_MS) or refused leaves it untouched. `null`: cleared by this sign-in (the
 * old one is not read); `undefined`: not yet set (a client: the saved one is read).
 */
interface Pending {
  client?: StoredOAuthClientInformation | null;
  discovery?: OAuthDiscoveryState | null;
  tokens?: StoredOAuthTokens;
}

export class StoredProvider implements OAuthClientProvider {
  private verifier = "";
  /** Set when `auth()` wanted a person (no token could be had without one) while none is signing in. */
  needsSignIn = false;
  /** A sign-in made anew (`fresh`): the old tokens and discovery are not read, and nothing is saved before tokens. */
  private pending: Pending | undefined;

  constructor(
    private readonly store: AuthStore,
    private readonly url: string,
    private readonly client: OAuthClientSettings | undefined,
    private readonly env: Record<string, string | undefined>,
    private readonly interactive?: Interactive,
    /** Told every token (and client secret) used, so that no output can echo it (cli.ts redacts what it is told). */
    private readonly onSecret?: (secret: string) => void,
    how: {
      /**
       * A new sign-in, not a refresh of the old one: discovery afresh (the server may have moved to another
       * authorization server, where mcp-task registers again), and the old tokens not offered to auth() (it would
       * refresh them); what it finds is saved only with the new tokens (Pending).
       */
      fresh?: boolean;
      /**
       * A server saved nowhere, reached by its URL: only a sign-in made for that URL is used (one a person made by
       * URL, marked so), never one a saved server left there; a new one is saved marked so.
       */
      byUrl?: boolean;
    } = {},
  ) {
    if (how.fresh) this.pending = { discovery: null };
    this.byUrl = how.byUrl === true;
  }

  private readonly byUrl: boolean;

  /** The saved sign-in this provider may use (empty: one a saved server left at a URL reached by URL alone). */
  private saved(): AuthRecord {
    const record = this.store.read(this.url);
    return this.byUrl && !record.byUrl ? { url: this.url } : record;
  }

  private get machine(): boolean {
    return this.client?.grant === "client_credentials";
  }

  get redirectUrl(): string | undefined {
    if (this.machine) return undefined;
    // Without a person, the registered redirect stands in: `auth()` may then refresh, or ask for a redirect, which
    // redirectToAuthorization below turns into "sign-in needed".
    return this.interactive?.redirectUrl ?? "http://127.0.0.1/callback";
  }

  /** A client ID metadata document (SEP-991): the SDK's auth() uses its URL as the client id where the
   *  authorization server says it supports them, and registers dynamically otherwise. */
  get clientMetadataUrl(): string | undefined {
    return this.client?.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.client?.clientSecret !== undefined;
    return {
      client_name: "mcp-task",
      redirect_uris: this.redirectUrl ? [this.redirectUrl] : [],
      grant_types: this.machine ? ["client_credentials"] : ["authorization_code", "refresh_token"],
      response_types: this.machine ? [] : ["code"],
      token_endpoint_auth_method: secret ? "client_secret_basic" : "none",
      ...(this.client?.scope ? { scope: this.client.scope } : {}),
    };
  }

  /** Whether a new token can be had without a person: a refresh token, or the client-credentials grant. */
  async renewsAlone(): Promise<boolean> {
    return this.machine || Boolean(this.saved().tokens?.refresh_token);
  }

  /**
   * Gets new tokens without a person (`renew`: the SDK's auth(), a refresh or the client-credentials grant) under the
   * server's lock; when another process renewed them meanwhile (the saved access token is not the one refused),
   * those are used instead.
   */
  async renewed(refused: string | undefined, renew: () => Promise<string>): Promise<string> {
    return this.store.locked(this.url, async () => {
      const saved = this.saved().tokens?.access_token;
      return saved && saved !== refused ? "AUTHORIZED" : renew();
    });
  }

  state(): string {
    return this.interactive?.state ?? "";
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    if (this.client?.clientId) {
      const secret = this.client.clientSecret && resolveEnvRefs(this.client.clientSecret, this.env);
      if (secret) this.onSecret?.(secret);
      return { client_id: this.client.clientId, ...(secret ? { client_secret: secret } : {}) };
    }
    const saved = this.pending?.client !== undefined ? (this.pending.client ?? undefined) : this.saved().client;
    // A client registered for another loopback port: authorization servers may match redirect URIs exactly, so a
    // sign-in on a new port registers again.
    const uris = (saved as { redirect_uris?: string[] } | undefined)?.redirect_uris;
    if (saved && this.interactive && uris && !uris.includes(this.interactive.redirectUrl)) return undefined;
    return saved;
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    if (this.pending) {
      // Checked as it would be saved (./record.ts), before it is used: a client the reader would refuse ends the
      // sign-in here, as when it was written at once.
      this.pending.client = boundedRecord({ url: this.url, client }).client ?? null;
      return;
    }
    await this.store.update(this.url, (record) => (record.client = client));
  }

  tokens(): StoredOAuthTokens | undefined {
    const tokens = this.pending ? this.pending.tokens : this.saved().tokens;
    if (tokens) this.tell(tokens);
    return tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    this.tell(tokens);
    const pending = this.pending;
    if (!pending && !this.byUrl) return this.store.saveTokens(this.url, tokens);
    // The new sign-in, whole, in one write under the lock: its tokens with the client and discovery they go with.
    if (pending) pending.tokens = tokens;
    await this.store.update(this.url, (record) => {
      record.tokens = tokens;
      record.savedAt = undefined; // stamped now by the store
      if (this.byUrl) record.byUrl = true;
      if (!pending) return;
      if (pending.client !== undefined) record.client = pending.client ?? undefined;
      record.discovery = pending.discovery ?? undefined;
    });
    this.pending = undefined;
  }

  private tell(tokens: StoredOAuthTokens): void {
    for (const secret of [tokens.access_token, tokens.refresh_token, tokens.id_token])
      if (secret) this.onSecret?.(secret);
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (this.interactive) return this.interactive.open(url);
    this.needsSignIn = true;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier; // one process signs in from start to end: the verifier never needs to be on disk
  }

  codeVerifier(): string {
    return this.verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    if (this.pending) return this.pending.discovery ?? undefined;
    return this.saved().discovery;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    judgeAuthorizationServer(state); // before anything is registered, sent or opened: auth() saves it first
    if (this.pending) {
      this.pending.discovery = boundedRecord({ url: this.url, discovery: state }).discovery ?? null;
      return;
    }
    await this.store.update(this.url, (record) => (record.discovery = state));
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier") {
      this.verifier = "";
      return;
    }
    const pending = this.pending;
    if (pending) {
      // A sign-in under way forgets what it found itself; the saved sign-in is not its to change.
      if (scope === "all" || scope === "tokens") pending.tokens = undefined;
      if (scope === "all" || scope === "client") pending.client = null;
      if (scope === "all" || scope === "discovery") pending.discovery = null;
      return;
    }
    await this.store.update(this.url, (record) => {
      if (scope === "all" || scope === "tokens") record.tokens = record.savedAt = undefined;
      if (scope === "all" || scope === "client") record.client = undefined;
      if (scope === "all" || scope === "discovery") record.discovery = undefined;
    });
  }

  /** client_credentials: the grant the SDK sends when no person is involved (what its ClientCredentialsProvider
   *  sends too; that class keeps tokens in memory only, so each command would fetch a new token). */
  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.machine) return undefined;
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    if (scope) params.set("scope", scope);
    return params;
  }
}

/**
 * An authorization server is used only when it and every endpoint its metadata names for the sign-in (its issuer,
 * the authorization page, the token and registration endpoints) keep the rule of src/secure-url.ts: else
 * UnsafeUrlError (exit 8), thrown where auth() saves what it discovered, before it registers a client, asks for a
 * token or opens a page. (A revocation endpoint that breaks it is only not used: logout.ts.)
 */
function judgeAuthorizationServer(state: OAuthDiscoveryState): void {
  const metadata = (state.authorizationServerMetadata ?? {}) as Record<string, unknown>;
  const named: Array<[string, unknown]> = [
    ["the authorization server", state.authorizationServerUrl],
    ["the authorization server's issuer", metadata.issuer],
    ["the authorization server's authorization page", metadata.authorization_endpoint],
    ["the authorization server's token endpoint", metadata.token_endpoint],
    ["the authorization server's registration endpoint", metadata.registration_endpoint],
  ];
  for (const [what, value] of named) if (value !== undefined) secureUrl(String(value), what);
}
