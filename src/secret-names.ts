// Which names and values are credentials: the one rule `server add`, `server import` and the secrets of a process
// (secrets.ts) share. Pure, and at the bottom of the layers, so that the store (client-config.ts) and the commands
// can judge a value without the process's secrets.

/** Names of headers and variables whose value is a credential. */
const SECRET_NAME =
  /token|secret|passw(or)?d|api[-_]?key|access[-_]?key|private[-_]?key|credential|auth|cookie|session|(^|[-_])(pass|pwd|key)([-_]|$)/i;
/** Values that are credentials whatever they are called (a scheme and a token, well-known key prefixes). */
const SECRET_VALUE = /^(bearer|basic|token|dpop)\s+\S|^(ghp_|gho_|ghs_|github_pat_|sk-|xox[abpr]-|AKIA|glpat-|npm_)\S/i;

/**
 * The one rule for a header's or a variable's value as given (`server add`, `server import`, what older versions
 * saved): a literal secret, which mcp-task never stores, when it holds no `${env:NAME}` reference and its name says
 * credential (Authorization, Cookie, X-Api-Key, *token*, *secret*, *key*...) or its value looks like one.
 */
export function isLiteralSecret(name: string, value: string): boolean {
  return !value.includes("${env:") && (SECRET_NAME.test(name) || SECRET_VALUE.test(value.trim()));
}

/** Whether a name (a variable's, in a server's address) says it holds a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** Whether a value looks like a secret whatever it is called. */
export function looksSecret(value: string): boolean {
  return SECRET_VALUE.test(value.trim());
}

/** A credential's scheme and the space after it ("Bearer "). */
const SECRET_SCHEME = /^(bearer|basic|token|dpop)\s+/i;

/** The scheme a credential value starts with ("Bearer "), to show the reference that replaces it. */
export function schemeOf(value: string): string {
  return SECRET_SCHEME.exec(value.trim())?.[0] ?? "";
}
