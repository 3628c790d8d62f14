// JUnit XML of `mcp-task check` (`--junit FILE`), the report format CI systems read: one test suite, a test case per
// check; a failed check is a <failure>, a skipped one <skipped>, a warning passes with its detail in <system-out>.
// The spec section a check enforces is its `spec` property, and a failure's message names it too. A check that
// created no task adds a failed case `nothing-checked`; one that could not run (the server unreachable, a usage
// error) is a report of one errored case naming the cause, so that a CI report step always finds a file.
// Server text is in every name and detail: made terminal-safe (sanitize: a CI log shows it), then escaped for XML,
// and characters XML 1.0 cannot hold are dropped.
import { sanitize, sanitizeLine } from "../sanitize.js";
import type { CheckResult } from "../tasks/check.js";

/** A case of the report that is no check: why nothing was checked. */
export interface JunitProblem {
  /** `failure`: the checks ran and checked nothing; `error`: they could not run. */
  kind: "failure" | "error";
  name: string;
  message: string;
  /** The error's code (src/errors.ts), for an `error`. */
  type?: string;
}

// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|\p{Cs}/gu;
const escapeXml = (text: string) =>
  text.replace(NOT_XML, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
/** An attribute value: one line. */
const attr = (text: string) => escapeXml(sanitizeLine(text));
const seconds = (ms: number) => (ms / 1000).toFixed(3);

function testCase(suite: string, r: CheckResult): string {
  const open = `  <testcase classname="${suite}" name="${attr(`${r.name}: ${r.title}`)}" time="${seconds(r.ms)}">`;
  const properties = r.spec
    ? `\n    <properties>\n      <property name="spec" value="${attr(r.spec)}"/>\n    </properties>`
    : "";
  const detail = attr(r.detail);
  const body =
    r.status === "fail"
      ? `<failure message="${detail}${r.spec ? attr(` (spec: ${r.spec})`) : ""}"/>`
      : r.status === "skip"
        ? `<skipped message="${detail}"/>`
        : `<system-out>${r.status}: ${escapeXml(sanitize(r.detail))}</system-out>`;
  return `${open}${properties}\n    ${body}\n  </testcase>`;
}

function problemCase(suite: string, problem: JunitProblem): string {
  const type = problem.type ? ` type="${attr(problem.type)}"` : "";
  return [
    `  <testcase classname="${suite}" name="${attr(problem.name)}" time="0.000">`,
    `    <${problem.kind} message="${attr(problem.message)}"${type}/>`,
    "  </testcase>",
  ].join("\n");
}

/** The checks of one server as a JUnit document, with `problem` as a case of its own. */
export function junitReport(server: string, results: readonly CheckResult[], problem?: JunitProblem): string {
  const tests = results.length + (problem ? 1 : 0);
  const failures = results.filter((r) => r.status === "fail").length + (problem?.kind === "failure" ? 1 : 0);
  const errors = problem?.kind === "error" ? 1 : 0;
  const skipped = results.filter((r) => r.status === "skip").length;
  const total = seconds(results.reduce((sum, r) => sum + r.ms, 0));
  const suite = attr(`mcp-task check ${server}`);
  const counts = `tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${total}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites ${counts}>`,
    `<testsuite name="${suite}" ${counts}>`,
    ...results.map((r) => testCase(suite, r)),
    ...(problem ? [problemCase(suite, problem)] : []),
    "</testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
