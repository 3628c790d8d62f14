// Forward proxies: HTTPS_PROXY, HTTP_PROXY and NO_PROXY (and their lower-case forms, as curl reads them) are
// honoured for HTTP servers. Node's own fetch ignores them; undici, the library under it, has the agent for exactly
// this: ProxyAgent, a CONNECT tunnel for https servers and, with `proxyTunnel: false`, absolute-form requests
// (`POST http://host/mcp`) for http ones, as a plain-HTTP forward proxy expects them. Not undici's EnvHttpProxyAgent:
// it does the same choice but is marked experimental and said so on stderr in every command (a Node warning), and it
// passes its own options to both agents alike. Its NO_PROXY rule is kept here as it was (bypassesProxy). undici is
// loaded only when a proxy variable is set, so that a command without one pays nothing for it. undici 6 is the major
// whose engines run on Node 20 (7 and 8 need 20.18 / 22.19).

/** The proxy variables, read from the context's environment (never process.env). */
function proxyEnv(env: Record<string, string | undefined>): {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
} {
  const pick = (name: string) => env[name] || env[name.toLowerCase()] || undefined;
  const httpProxy = pick("HTTP_PROXY");
  const httpsProxy = pick("HTTPS_PROXY") ?? httpProxy;
  const noProxy = pick("NO_PROXY");
  return { ...(httpProxy && { httpProxy }), ...(httpsProxy && { httpsProxy }), ...(noProxy && { noProxy }) };
}

/**
 * Whether NO_PROXY sends `url` around the proxy: `*` for every host; else a comma- or space-separated list of hosts,
 * each with an optional `:port`; a host matches itself, one starting with `.` or `*` every host ending so.
 */
export function bypassesProxy(url: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  if (noProxy.trim() === "*") return true;
  const hostname = url.host.replace(/:\d*$/, "").toLowerCase(); // IPv6 brackets kept, as NO_PROXY writes them
  const port = Number.parseInt(url.port, 10) || (url.protocol === "https:" ? 443 : 80);
  return noProxy
    .split(/[,\s]/)
    .filter(Boolean)
    .some((entry) => {
      const parsed = /^(.+):(\d+)$/.exec(entry);
      const host = (parsed ? parsed[1] : entry).toLowerCase();
      if (parsed && Number(parsed[2]) !== port) return false;
      return /^[.*]/.test(host) ? hostname.endsWith(host.replace(/^\*/, "")) : hostname === host;
    });
}

/**
 * The fetch to reach servers with: undici's, through the proxy the environment names, or undefined (the built-in
 * fetch) when it names none. The agent is chosen per request (a redirect may cross from http to https).
 */
export async function proxiedFetch(env: Record<string, string | undefined>): Promise<typeof fetch | undefined> {
  const { httpProxy, httpsProxy, noProxy } = proxyEnv(env);
  if (!httpProxy && !httpsProxy) return undefined;
  // undici is CommonJS: bundled as an ES module, its exports are its default export's fields.
  const loaded = (await import("undici")) as unknown as typeof import("undici") & { default?: typeof import("undici") };
  const { Agent, ProxyAgent, fetch: undiciFetch } = loaded.default ?? loaded;
  let directAgent: InstanceType<typeof Agent> | undefined;
  const direct = () => (directAgent ??= new Agent());
  // http targets: absolute-form through an http:// proxy (undici tunnels where the proxy itself is https://).
  const forHttp = httpProxy ? new ProxyAgent({ uri: httpProxy, proxyTunnel: false }) : undefined;
  const forHttps = httpsProxy ? new ProxyAgent({ uri: httpsProxy }) : undefined;
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const proxy = url.protocol === "https:" ? forHttps : forHttp;
    const dispatcher = !proxy || bypassesProxy(url, noProxy) ? direct() : proxy;
    return undiciFetch(input as never, { ...(init as object), dispatcher } as never);
  }) as unknown as typeof fetch;
}
