// Sending a person to the authorization page: `$BROWSER` when set (the convention gh and xdg-open follow: a
// command, given the URL as its last argument), else the platform's opener; when neither may be used, the URL is
// printed and the person opens it. Only an address that keeps src/secure-url.ts's rule is handed over, as its
// parsed `href`.
import { parseCommandLine } from "../protocol/server.js";
import { secureUrl, type SecureUrl } from "../secure-url.js";

export interface OpenPolicy {
  env: Record<string, string | undefined>;
  /** A person is at a terminal (stdin and stderr are terminals, not CI). */
  terminal: boolean;
  /** --no-browser */
  noBrowser?: boolean;
  platform?: NodeJS.Platform;
}

/** A command that opens a URL, run in the environment of the command that opens it (the Context's). */
export interface Opener {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
}

/** The command that opens a URL, or undefined when the URL is to be printed instead. */
export function opener(policy: OpenPolicy): Opener | undefined {
  if (policy.noBrowser) return undefined;
  const env = policy.env;
  const browser = env.BROWSER?.trim();
  if (browser) return { ...parseCommandLine(browser), env };
  if (!policy.terminal) return undefined;
  const platform = policy.platform ?? process.platform;
  if (platform === "darwin") return { command: "open", args: [], env };
  if (platform === "win32") return { command: "rundll32", args: ["url.dll,FileProtocolHandler"], env };
  return { command: "xdg-open", args: [], env };
}

/** Whether a command meeting a 401 may sign in on demand: a browser can be opened for the person. */
export function maySignIn(policy: OpenPolicy): boolean {
  return opener(policy) !== undefined;
}

/**
 * Runs the opener with the page (judged by the caller, who names it; judged again here, so that nothing reaches a
 * browser around the rule) as its parsed `href`; resolves false when it could not be started or failed (then print
 * the address).
 */
export async function openUrl(command: Opener, page: SecureUrl): Promise<boolean> {
  const url = secureUrl(page, "the page").href;
  // Loaded here, not at the top: this module is in every command's start, and node:child_process (with node:net,
  // which it loads) is ~3 ms of it.
  const { spawn } = await import("node:child_process");
  return new Promise((resolve) => {
    const child = spawn(command.command, [...command.args, url], {
      stdio: "ignore",
      detached: true,
      env: command.env,
    });
    child.once("error", () => resolve(false));
    // An opener hands the URL over and exits; a browser run as $BROWSER may stay: not waited for past a moment.
    const timer = setTimeout(() => resolve(true), 2000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
    child.unref();
  });
}
