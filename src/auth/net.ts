// The fetch of the sign-in path: every request the SDK's auth() makes (protected-resource and authorization server
// metadata, registration, the token request, a refresh inside a command) and our revocation, each with a time limit
// (AUTH_REQUEST_TIMEOUT_MS, MCP_TASK_AUTH_TIMEOUT) and its body read whole, after decompression, up to
// MAX_AUTH_BODY_BYTES. The SDK reads these bodies with `response.json()`, unbounded and with no timeout: this fetch
// hands it a body already read (the MCP transport's own bound is src/protocol/limits.ts).
//
// The SDK swallows some failures (a refresh that fails falls back on a new authorization; a protected-resource
// metadata that fails falls back on the server's root), so the first failure is also kept here (`failure`), for the
// caller to report instead of what followed it.
import { parseDuration } from "../duration.js";
import { AuthRequiredError, McpTaskError, ServerError } from "../errors.js";
import { AUTH_REQUEST_TIMEOUT_MS, MAX_AUTH_BODY_BYTES } from "../limits.js";
import { networkError } from "../protocol/failures.js";
import { sanitizeLine } from "../sanitize.js";
import { formatBytes } from "../store/safe-fs.js";

/** MCP_TASK_AUTH_TIMEOUT: how long one sign-in request may take (default AUTH_REQUEST_TIMEOUT_MS; 0: no limit). */
export function authTimeoutMs(env: Record<string, string | undefined>): number {
  const value = env.MCP_TASK_AUTH_TIMEOUT;
  return value ? parseDuration(value, "MCP_TASK_AUTH_TIMEOUT") : AUTH_REQUEST_TIMEOUT_MS;
}

/** An endpoint as messages name it: origin and path, without the query (which may carry a code or a token). */
export function endpointOf(input: string | URL | Request): string {
  try {
    const url = new URL(input instanceof Request ? input.url : String(input));
    return sanitizeLine(`${url.origin}${url.pathname}`).slice(0, 300);
  } catch {
    return "an address that is not a URL";
  }
}

const seconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`);

export class AuthNet {
  /** The first failure of a request through this fetch (a timeout, a body past the bound, a network error). */
  failure?: McpTaskError;
  /** The endpoint whose answer was handed over last: the one an answer the SDK cannot parse came from. */
  last?: string;

  constructor(
    private readonly inner: typeof fetch,
    readonly timeoutMs: number,
    private readonly limit = MAX_AUTH_BODY_BYTES,
  ) {}

  private fail(error: McpTaskError): McpTaskError {
    this.failure ??= error;
    return error;
  }

  readonly fetch: typeof fetch = async (input, init) => {
    // A sign-in one of whose requests failed makes no more (the SDK would go on to register, or open a page, with
    // an authorization server it fell back on).
    if (this.failure) throw this.failure;
    const endpoint = endpointOf(input);
    const timeout = this.timeoutMs > 0 ? AbortSignal.timeout(this.timeoutMs) : undefined;
    const signals = [init?.signal, timeout].filter((s): s is AbortSignal => Boolean(s));
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    try {
      const response = await this.inner(input, { ...init, ...(signal ? { signal } : {}) });
      const body = await this.read(response, endpoint);
      if (response.ok && body) this.check(await body.text(), endpoint);
      const headers = new Headers(response.headers);
      // The body is already decoded: the copy must not say it is compressed, nor give the compressed length.
      headers.delete("content-encoding");
      headers.delete("content-length");
      this.last = endpoint;
      const empty = [204, 205, 304].includes(response.status);
      return new Response(empty ? null : body, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    } catch (error) {
      if (timeout?.aborted && !init?.signal?.aborted) {
        const out = new ServerError(
          `the authorization server did not answer ${endpoint} within ${seconds(this.timeoutMs)} (MCP_TASK_AUTH_TIMEOUT)`,
          "check that the authorization server is up, then try again",
        );
        out.transient = true;
        throw this.fail(out);
      }
      if (error instanceof McpTaskError) throw this.fail(error);
      const named = networkError(error, endpoint);
      if (named instanceof McpTaskError) throw this.fail(named);
      throw error;
    }
  };

  /**
   * Protected resource metadata (RFC 9728) naming an authorization server that is not an http(s) URL: the SDK
   * refuses that document without a word and takes the server's own origin for its authorization server; here the
   * sign-in stops, naming the address.
   */
  private check(text: string, endpoint: string): void {
    let servers: unknown;
    try {
      servers = (JSON.parse(text) as { authorization_servers?: unknown })?.authorization_servers;
    } catch {
      return; // not JSON: the SDK's parse says so
    }
    if (!Array.isArray(servers)) return;
    for (const server of servers) {
      const url = typeof server === "string" && URL.canParse(server) ? new URL(server) : undefined;
      if (url?.protocol === "https:" || url?.protocol === "http:") continue;
      throw new AuthRequiredError(
        `the protected resource metadata (${endpoint}) names an authorization server that is not an http(s) URL: ${JSON.stringify(sanitizeLine(String(server)).slice(0, 200))}`,
        "the server's sign-in is misconfigured: tell its operator",
      );
    }
  }

  /** The whole body, decompressed, at most `limit` bytes (the rest is not read). */
  private async read(response: Response, endpoint: string): Promise<Blob | null> {
    if (!response.body) return null;
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > this.limit) {
        await reader.cancel().catch(() => {});
        throw new ServerError(
          `${endpoint} sent more than ${formatBytes(this.limit)} (MAX_AUTH_BODY_BYTES, counted decompressed): not an OAuth answer`,
          "the authorization server misbehaves: tell its operator",
        );
      }
      chunks.push(value);
    }
    return new Blob(chunks as BlobPart[]);
  }
}
