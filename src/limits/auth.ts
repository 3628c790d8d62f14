// ---- sign-in: how long it waits, what it reads and saves, how often it is tried again ----
/** How long a sign-in waits for the browser to come back to the loopback listener (`mcp-task login`, or a command
 *  signing in on demand): a person reads the page and approves; then the command gives up with exit 8. */
export const LOGIN_WAIT_MS = 5 * 60 * 1000;
/** A server's saved sign-in (`<home>/auth/<key>.json`: client registration, tokens, discovery), read at most this
 *  large: tokens are a few KB, discovery documents a few more. A sign-in never writes a larger one
 *  (src/auth/record.ts keeps only the fields mcp-task uses, and refuses the sign-in, exit 8, past this). */
export const MAX_AUTH_FILE_BYTES = 256 * 1024;
/** How long each request of a sign-in may take, its body included: the first unauthenticated one (to read the
 *  server's 401 challenge), discovery, registration, the token request (a refresh inside a command too) and a
 *  revocation. An authorization server answers these at once; one that never answers must not hold `login` or a
 *  command for the network's own timeouts (minutes). Settable with MCP_TASK_AUTH_TIMEOUT (src/auth/net.ts). */
export const AUTH_REQUEST_TIMEOUT_MS = 10_000;
/** The largest body read from an authorization server or a protected resource's metadata (discovery documents,
 *  registration, token and revocation answers), counted after decompression: these are a few KB, and a gzip bomb
 *  sent as metadata must not cost a gigabyte of memory. Past it the sign-in (or the refresh) fails, naming the
 *  endpoint (exit 4). */
export const MAX_AUTH_BODY_BYTES = 1024 * 1024;
/** The longest token, client id or client secret a sign-in saves: an access token goes in an Authorization header,
 *  and common servers refuse request headers past 8 to 16 KiB (Node's limit for all of them is 16 KiB), so a longer
 *  one could never be sent; real ones, JWTs included, are at most a few KB. Past it the sign-in is refused (exit 8)
 *  rather than saved: four of them at this size still fit MAX_AUTH_FILE_BYTES. */
export const MAX_CREDENTIAL_CHARS = 16 * 1024;
/** How many times one command signs in again for a wider scope (a 403 `insufficient_scope`, step-up): a server
 *  that asks for more after every sign-in does not make the command sign in forever. */
export const MAX_SCOPE_STEP_UPS = 1;
/** How many times one command signs a person in on a 401 that no refresh cures: the first sign-in, and one more
 *  when the server refuses that token at once (it moved to another authorization server, SEP-2352: signed in again
 *  from fresh discovery, where mcp-task registers anew). A server that refuses every token costs two sign-ins. */
export const MAX_SIGN_INS = 2;
/** How many times one request refused with 401 has its token renewed: a token another command renewed meanwhile is
 *  taken as it is, and with short-lived tokens it may have expired again on the way (many commands at once); each
 *  turn either refreshes (then a refusal stands) or takes a newer token. Bounded so that nothing loops. */
export const MAX_TOKEN_RENEWALS = 3;
/** A server's sign-in lock (one token renewal at a time across commands, brokers and the dashboard): one left by a
 *  process killed while holding it is taken over after this long. */
export const AUTH_LOCK_STALE_MS = 10_000;
