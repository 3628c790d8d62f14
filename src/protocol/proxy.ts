// Forward proxies: HTTPS_PROXY, HTTP_PROXY and NO_PROXY (and their lower-case forms, as curl reads them) are
// honoured for HTTP servers. Node's own fetch ignores them; undici, the library under it, has the agent for exactly
// this (EnvHttpProxyAgent: CONNECT for https, absolute-form requests for http, NO_PROXY matching). It is loaded only
// when a proxy variable is set, so that a command without one pays nothing for it. undici 6 is the major whose
// engines run on Node 20 (7 and 8 need 20.18 / 22.19).

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
 * The fetch to reach servers with: undici's, through the proxy the environment names, or undefined (the built-in
 * fetch) when it names none. NO_PROXY is applied per request by the agent.
 */
export async function proxiedFetch(env: Record<string, string | undefined>): Promise<typeof fetch | undefined> {
  const options = proxyEnv(env);
  if (!options.httpProxy && !options.httpsProxy) return undefined;
  // undici is CommonJS: bundled as an ES module, its exports are its default export's fields.
  const loaded = (await import("undici")) as unknown as typeof import("undici") & { default?: typeof import("undici") };
  const { EnvHttpProxyAgent, fetch: undiciFetch } = loaded.default ?? loaded;
  const dispatcher = new EnvHttpProxyAgent(options);
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
}
