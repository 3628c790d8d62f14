#!/usr/bin/env node
// Lists the wall-clock and CPU bounds and the fixed sleeps over 200 ms in the test files (test/**/*.test.ts(x)),
// outside the soak (test/soak/soak.test.ts, which has its own time budget) and the bench (scripts/bench.mjs). Exits 1 if
// any is not marked as allowed, 0 otherwise. Run: node scripts/test-bounds.mjs [--all] [file...]
//
// What it finds (line by line, after dropping // comments, with the names of timing variables gathered per file):
//   time   an assertion on time or CPU: an expect(...) comparison (toBeLessThan, toBeGreaterThan, …OrEqual,
//          toBeCloseTo) whose value or bound reads the clock (Date.now(), performance.now(), process.hrtime,
//          process.cpuUsage), a measured run's .ms or .cpu, or a variable assigned from one of those (elapsed, took…);
//   sleep  a fixed wait over 200 ms: sleep(N), delay(N), setTimeout(…, N) with a literal N > 200, that is not the
//          poll interval of a loop on the same line (`while (…) await sleep(250)`) or of the loop header just above.
// A line is allowed when it, or the line just above it, carries one of these comments (say why after it):
//   // hang-only: …        a bound only a real hang trips (a guard timer, a generous deadline)
//   // process-timing: …   a sleep in a test about a process, a terminal, or a server's own timing
//   // fake-clock: …       time on a test's FakeClock (test/helpers/fake-clock.ts): exact, and no real time passes
//   // time-value: …       a timestamp the program wrote checked for its value (not how long anything took)
// Timeouts given to vitest (it(…, ms), { timeout }), to waitFor/eventually/until (their hang bounds) and deadlines
// of polling loops are hang bounds by construction and are not listed.
// --all also lists the allowed ones (marked "ok").
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const EXCLUDED = new Set(["test/soak/soak.test.ts"]);
const ALLOW = /\/\/.*\b(hang-only|process-timing|fake-clock|time-value)\b/;
const CLOCK = /Date\.now\(\)|performance\.now\(\)|process\.hrtime|process\.cpuUsage|\.cpuUsage\(/;
const MEASURED = /\b\w+\.(ms|cpu|elapsedMs|durationMs|wallMs|cpuSeconds)\b/;
const COMPARE = /\.(toBeLessThan|toBeLessThanOrEqual|toBeGreaterThan|toBeGreaterThanOrEqual|toBeCloseTo)\(/;
const LOOP_HEAD = /^\s*(for|while)\s*\(.*\)\s*$/;

function testFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...testFiles(path));
    else if (/\.test\.tsx?$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** The line without its // comment (a rough cut: not inside a string that holds "//" such as a URL). */
function code(line) {
  const at = line.search(/(^|[^:"'`])\/\//);
  return at < 0 ? line : line.slice(0, at + (line[at] === "/" ? 0 : 1));
}

function literalMs(text) {
  const value = Number(text.replace(/_/g, ""));
  return Number.isFinite(value) ? value : undefined;
}

/** The fixed waits of a line: sleep(N) / delay(N) / setTimeout(…, N), N a literal over 200 ms. */
function sleeps(line) {
  const found = [];
  for (const m of line.matchAll(/\b(?:sleep|delay)\(\s*([\d_]+)\s*\)/g)) found.push(literalMs(m[1]));
  for (const m of line.matchAll(/setTimeout\([^;]*?,\s*([\d_]+)\s*\)/g)) found.push(literalMs(m[1]));
  return found.filter((ms) => ms !== undefined && ms > 200);
}

function scan(file) {
  const lines = readFileSync(file, "utf8").split("\n");
  const timing = new Set();
  // Variables that hold a time or CPU figure: assigned from the clock or a measured run.
  for (const line of lines.map(code)) {
    const m = /\b(?:const|let|var)\s+(\w+)\s*=\s*(.*)$/.exec(line) ?? /^\s*(\w+)\s*=\s*(.*)$/.exec(line);
    if (m && (CLOCK.test(m[2]) || MEASURED.test(m[2]))) timing.add(m[1]);
  }
  const timingName = timing.size ? new RegExp(`\\b(${[...timing].join("|")})\\b`) : undefined;
  const hits = [];
  lines.forEach((raw, i) => {
    const line = code(raw);
    const allowed = ALLOW.test(raw) || (i > 0 && ALLOW.test(lines[i - 1]));
    if (COMPARE.test(line)) {
      // The assertion, from its expect( (up to 4 lines above, where the formatter split it).
      let from = i;
      while (from > i - 4 && from > 0 && !/\bexpect\(/.test(code(lines[from]))) from--;
      const statement = lines
        .slice(from, i + 1)
        .map(code)
        .join(" ");
      const marked = allowed || (from > 0 && ALLOW.test(lines[from - 1])) || ALLOW.test(lines[from]);
      if (
        /\bexpect\(/.test(statement) &&
        (CLOCK.test(statement) || MEASURED.test(statement) || timingName?.test(statement))
      )
        hits.push({ line: i + 1, kind: "time", text: raw.trim(), allowed: marked });
    }
    const waits = sleeps(line);
    if (waits.length > 0) {
      const poll = /\b(while|for)\s*\(/.test(line) || (i > 0 && LOOP_HEAD.test(code(lines[i - 1])));
      if (!poll) hits.push({ line: i + 1, kind: "sleep", text: raw.trim(), allowed });
    }
  });
  return hits;
}

const args = process.argv.slice(2);
const all = args.includes("--all");
const named = args.filter((a) => !a.startsWith("--"));
const files = (named.length ? named.map((f) => join(ROOT, f)) : testFiles(join(ROOT, "test")))
  .map((f) => relative(ROOT, f))
  .filter((f) => !EXCLUDED.has(f))
  .sort();

let unmarked = 0;
let marked = 0;
for (const file of files) {
  for (const hit of scan(join(ROOT, file))) {
    if (hit.allowed) marked++;
    else unmarked++;
    if (!hit.allowed || all) console.log(`${file}:${hit.line}: ${hit.allowed ? "ok   " : ""}${hit.kind}: ${hit.text}`);
  }
}
console.log(
  `test-bounds: ${files.length} files, ${unmarked} wall-clock/CPU bound(s) or fixed sleep(s) not marked, ${marked} marked`,
);
process.exit(unmarked > 0 ? 1 : 0);
