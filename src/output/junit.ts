// JUnit XML of `mcp-task check` (`--junit FILE`), the report format CI systems read: one test suite, a test case per
// check; a failed check is a <failure>, a skipped one <skipped>, a warning passes with its detail in <system-out>.
// The spec section a check enforces is its `spec` property, and a failure's message names it too.
// Server text is in every detail: it is escaped for XML, and characters XML 1.0 cannot hold are dropped.
import type { CheckResult } from "../tasks/check.js";

// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|\p{Cs}/gu;
const escapeXml = (text: string) =>
  text.replace(NOT_XML, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The checks of one server as a JUnit document. */
export function junitReport(server: string, results: readonly CheckResult[]): string {
  const failures = results.filter((r) => r.status === "fail").length;
  const skipped = results.filter((r) => r.status === "skip").length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = results.reduce((sum, r) => sum + r.ms, 0);
  const suite = escapeXml(`mcp-task check ${server}`);
  const cases = results.map((r) => {
    const open = `  <testcase classname="${suite}" name="${escapeXml(`${r.name}: ${r.title}`)}" time="${seconds(r.ms)}">`;
    const properties = r.spec
      ? `\n    <properties>\n      <property name="spec" value="${escapeXml(r.spec)}"/>\n    </properties>`
      : "";
    const detail = escapeXml(r.detail);
    const body =
      r.status === "fail"
        ? `<failure message="${detail}${r.spec ? escapeXml(` (spec: ${r.spec})`) : ""}"/>`
        : r.status === "skip"
          ? `<skipped message="${detail}"/>`
          : `<system-out>${r.status}: ${detail}</system-out>`;
    return `${open}${properties}\n    ${body}\n  </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${results.length}" failures="${failures}" skipped="${skipped}" time="${seconds(total)}">`,
    `<testsuite name="${suite}" tests="${results.length}" failures="${failures}" skipped="${skipped}" time="${seconds(total)}">`,
    ...cases,
    "</testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
