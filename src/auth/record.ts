// What a saved sign-in may hold (the one gate before <home>/auth/<key>.json is written): only the fields mcp-task
// and the SDK's auth() read (an authorization server's unknown metadata, extra token fields and id tokens are
// dropped), credentials that can be used (an access token an HTTP header can carry; none past
// MAX_CREDENTIAL_CHARS), and never a record the reader would refuse (MAX_AUTH_FILE_BYTES). A sign-in that cannot be
// saved under these rules is refused (exit 8) instead of saved and then refused by every command.
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { AuthRequiredError } from "../errors.js";
import { MAX_AUTH_FILE_BYTES, MAX_CREDENTIAL_CHARS } from "../limits.js";
import { sanitizeLine } from "../sanitize.js";
import { formatBytes } from "../store/safe-fs.js";

export interface AuthRecord {
  /** The server URL this record is for (a check on the file name's hash). */
  url: string;
  /** A dynamically registered client (a pre-registered one lives in the settings, its secret as a reference). */
  client?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  /** When the tokens were saved (ms since epoch): with `expires_in`, when they expire. */
  savedAt?: number;
  discovery?: OAuthDiscoveryState;
  /** Made by a person for this URL, saved as no server (`login <url>`, or a command given `-s <url>`). */
  byUrl?: true;
}

/** Authorization server metadata (RFC 8414) as used: endpoints, what the SDK checks, and revocation (logout.ts). */
const SERVER_FIELDS = [
  "issuer",
  "authorization_endpoint",
  "token_endpoint",
  "registration_endpoint",
  "revocation_endpoint",
  "response_types_supported",
  "grant_types_supported",
  "code_challenge_methods_supported",
  "token_endpoint_auth_methods_supported",
  "scopes_supported",
  "client_id_metadata_document_supported",
  "authorization_response_iss_parameter_supported",
] as const;
/** Protected resource metadata (RFC 9728): the resource, its authorization servers, the scopes it asks for. */
const RESOURCE_FIELDS = ["resource", "authorization_servers", "scopes_supported"] as const;
const DISCOVERY_FIELDS = ["authorizationServerUrl", "resourceMetadataUrl"] as const;
/** No id token: mcp-task never reads one, and a secret not kept is one that cannot leak. */
const TOKEN_FIELDS = ["access_token", "token_type", "expires_in", "refresh_token", "scope", "issuer"] as const;
const CLIENT_FIELDS = [
  "client_id",
  "client_secret",
  "client_id_issued_at",
  "client_secret_expires_at",
  "token_endpoint_auth_method",
  "redirect_uris",
  "issuer",
] as const;

function pick<T>(value: unknown, fields: readonly string[]): T | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const field of fields)
    if ((value as Record<string, unknown>)[field] !== undefined) out[field] = (value as Record<string, unknown>)[field];
  return out as T;
}

/** Visible ASCII, no space: what an `Authorization: Bearer` header carries as sent (RFC 6750's b64token is within). */
const HEADER_SAFE = /^[\x21-\x7e]+$/;
/** C0 and C1 controls, DEL: nothing a credential sent in a form or a URL should hold. */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

function refuse(url: string, what: string): never {
  throw new AuthRequiredError(
    `refused the sign-in to ${sanitizeLine(url).slice(0, 300)}: ${what}`,
    "the authorization server sends what no client can use: tell its operator",
  );
}

function checkCredential(url: string, name: string, value: unknown, headerSafe = false): void {
  if (value === undefined) return;
  if (typeof value !== "string" || value.length === 0) refuse(url, `its ${name} is not a string`);
  if (value.length > MAX_CREDENTIAL_CHARS)
    refuse(
      url,
      `its ${name} is ${value.length} characters long (at most ${MAX_CREDENTIAL_CHARS}: MAX_CREDENTIAL_CHARS)`,
    );
  if (headerSafe ? !HEADER_SAFE.test(value) : CONTROL.test(value))
    refuse(
      url,
      headerSafe
        ? `its ${name} holds a space, a control character or a non-ASCII character, which an HTTP header cannot carry`
        : `its ${name} holds a control character`,
    );
}

/** The record as it is written: pruned to the fields above, its credentials checked, its size within the reader's. */
export function boundedRecord(record: AuthRecord): AuthRecord {
  const { url } = record;
  const tokens = pick<StoredOAuthTokens>(record.tokens, TOKEN_FIELDS);
  const client = pick<StoredOAuthClientInformation>(record.client, CLIENT_FIELDS);
  checkCredential(url, "access token", tokens?.access_token, true);
  checkCredential(url, "refresh token", tokens?.refresh_token);
  checkCredential(url, "client id", client?.client_id);
  checkCredential(url, "client secret", client?.client_secret);
  const discovery = pick<OAuthDiscoveryState>(record.discovery, DISCOVERY_FIELDS);
  if (discovery && record.discovery) {
    const server = pick<OAuthDiscoveryState["authorizationServerMetadata"]>(
      record.discovery.authorizationServerMetadata,
      SERVER_FIELDS,
    );
    const resource = pick<OAuthDiscoveryState["resourceMetadata"]>(record.discovery.resourceMetadata, RESOURCE_FIELDS);
    if (server) discovery.authorizationServerMetadata = server;
    if (resource) discovery.resourceMetadata = resource;
  }
  const out: AuthRecord = {
    url,
    ...(client ? { client } : {}),
    ...(tokens ? { tokens } : {}),
    ...(record.savedAt !== undefined ? { savedAt: record.savedAt } : {}),
    ...(discovery ? { discovery } : {}),
    ...(record.byUrl === true ? { byUrl: true as const } : {}),
  };
  const size = Buffer.byteLength(JSON.stringify(out));
  if (size > MAX_AUTH_FILE_BYTES)
    refuse(
      url,
      `its metadata and tokens would make a saved sign-in of ${formatBytes(size)}, past the ${formatBytes(MAX_AUTH_FILE_BYTES)} mcp-task reads back (MAX_AUTH_FILE_BYTES)`,
    );
  return out;
}
