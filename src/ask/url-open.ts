// Opening a URL-mode elicitation's page once consent is given (src/tasks/url-elicitation.ts decides when): the
// browser of a sign-in ($BROWSER, else the platform's opener on a terminal: ../auth/browser.ts), or the address
// printed where nothing can open it; only a page that keeps src/secure-url.ts's rule, as its parsed `href`. Hosts named ahead come from --open-url and MCP_TASK_OPEN_URL_HOSTS.
import { opener, openUrl } from "../auth/browser.js";
import type { Context } from "../context.js";
import { sanitizeLine } from "../sanitize.js";
import { secureUrl } from "../secure-url.js";
import type { InputProvider } from "../tasks/input.js";
import { hostsFrom, urlAware } from "../tasks/url-elicitation.js";

export interface UrlOpening {
  /** --open-url */
  readonly hosts?: readonly string[];
  /** The inner provider asks a person. */
  readonly person: boolean;
  readonly decline?: boolean;
  /** Where a line for the person goes (opened, or the address to open by hand). */
  say(text: string): void;
}

export function withUrlOpening(ctx: Context, inner: InputProvider, options: UrlOpening): InputProvider {
  return urlAware(inner, {
    hosts: hostsFrom(options.hosts ?? [], ctx.env.MCP_TASK_OPEN_URL_HOSTS),
    person: options.person,
    decline: options.decline,
    open: async (url, view) => {
      const page = secureUrl(url, "the server's page");
      const command = opener({ env: ctx.env, terminal: ctx.io.interactive });
      if (command && (await openUrl(command, page))) options.say(`opened ${view.origin} in the browser`);
      // Printed whole (the shown form may be cut), made safe: the parser percent-encodes what a terminal acts on.
      else options.say(`open this page in a browser: ${sanitizeLine(page.href)}`);
    },
  });
}
