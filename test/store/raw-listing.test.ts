// `list --json` of a large store whose index is stamped: finished tasks' rows are copied from the index unparsed.
// The output must be byte for byte what the parsing path prints, odd ids included (quotes, backslashes, characters
// safeJson escapes), and unfinished tasks still checked against their files.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { fileStem } from "../../src/store/handle-file.js";
import { saveHandle, stampedStore, taskDir } from "../helpers/large-store.js";
import { ROOT } from "../helpers/servers.js";
import { tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { joinRows } from "../../src/output/list-bytes.js";
import { LINE_SPARE_BYTES, putRowLine, rowLine } from "../../src/output/list-line.js";
import { plainViewFields, VIEW_FIELD } from "../../src/store/raw-view.js";
import { readOwnFile, roomAfter } from "../../src/store/safe-fs.js";
import { age } from "../../src/tasks/views.js";
import type { HandleView } from "../../src/model.js";

/** Saves handles through the store's own code, in a process of its own (dist/test-tools/store-writer.js). */
function writer(...args: string[]): Promise<void> {
  const child = spawn(process.execPath, [join(ROOT, "dist/test-tools/store-writer.js"), ...args], { stdio: "inherit" });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`writer exited ${code}`)))),
  );
}

const ALL = "--status=working,input_required,completed,failed,cancelled,expired,gone";

// An index of ASCII alone (quotes and backslashes included) is copied to the output as bytes; one with a character
// to escape (DEL, a bidi control) or any other, as text escaped.
const ODD = {
  ascii: ['q"uote', "back\\slash", '{"taskId":1}', ',"createdAt":"x'],
  escaped: ['q"uote', "back\\slash", "del\u007fx", "rtl\u202eevil", "é-ü", '{"taskId":1}'],
};

it.each(Object.keys(ODD) as Array<keyof typeof ODD>)(
  "list --json from a stamped index (%s) prints what the parsing path prints, byte for byte",
  async (kind) => {
    const home = tempHome();
    const dir = taskDir(home);
    // ~3,400 handles: an index past RAW_INDEX_MIN_BYTES (1 MiB).
    for (let i = 0; i < 3400; i++) saveHandle(dir, `t-${i}`, i, i % 100 !== 0);
    // Older tasks on the 20 days before, each at another time of day (later days not always later in the day):
    // sorted by day, then by time.
    const days = 20;
    for (let d = 0; d < days; d++) saveHandle(dir, `day-${d}`, -86_400 * (d + 1) + ((d * 7919) % 86_400), true);
    const odd = [...ODD[kind], "brace-before-view"];
    odd.forEach((id, k) => saveHandle(dir, id, 4000 + k, true));
    // A "{" in a string before the row's view (the server's createdAt): the view is not the line's first "{".
    const braced = join(dir, `${fileStem("brace-before-view", "00000000")}.json`);
    const bracedHandle = JSON.parse(readFileSync(braced, "utf8"));
    bracedHandle.last.createdAt = "2026-01-01T00:00:00Z{x}";
    writeFileSync(braced, JSON.stringify(bracedHandle));
    const list = async (...args: string[]) => {
      const run = await runInProcess(["list", "--json", ...args], { home });
      expect(run.code, run.stderr).toBe(0);
      return run.stdout;
    };
    const index = () => readFileSync(join(dir, ".index.ndjson"), "utf8").trimEnd().split("\n");
    await list(); // builds the index from the files
    const past = (Date.now() - 60_000) / 1000;
    utimesSync(dir, past, past);
    const parsed = await list(); // lists the directory, stamps the index
    const stamp = JSON.parse(index().at(-1)!);
    expect(stamp[0]).toBe("dir");
    expect(stamp[4]).toMatch(/^[0-9a-f]{8}$/); // a checksum: the next list may copy rows
    const copied = await list();
    expect(copied).toBe(parsed);
    expect(copied).toBe(await list(ALL)); // the filtered path parses every row
    const rows = JSON.parse(copied) as Array<{ taskId: string; status: string }>;
    expect(rows).toHaveLength(3400 + days + odd.length);
    expect(rows.slice(-days).map((r) => r.taskId)).toEqual(Array.from({ length: days }, (_, d) => `day-${d}`));
    expect(rows.map((r) => r.taskId).slice(0, odd.length)).toEqual([...odd].reverse()); // newest first
    if (kind === "escaped") {
      expect(copied).toContain("del\\u007fx"); // escaped as safeJson escapes it
      expect(copied).not.toContain("\u202e");
    }

    // An unfinished task's file edited in place: the copy path still reads it.
    const file = join(dir, `${fileStem("t-0", "00000000")}.json`);
    const handle = JSON.parse(readFileSync(file, "utf8"));
    handle.last.status = "failed";
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(file, JSON.stringify(handle));
    expect(JSON.parse(await list()).find((r: { taskId: string }) => r.taskId === "t-0").status).toBe("failed");
    expect(await list()).toBe(await list(ALL));
  },
);

it("list on a terminal shows the newest page and the count of the rest, from the stamped index or not; --all every task", async () => {
  const home = tempHome();
  const dir = taskDir(home);
  for (let i = 0; i < 3400; i++) saveHandle(dir, `t-${i}`, i, i % 100 !== 0);
  const list = async (...args: string[]) => {
    const run = await runInProcess(["list", ...args], { home, stdoutIsTTY: true });
    expect(run.code, run.stderr).toBe(0);
    return run.stdout.trimEnd().split("\n");
  };
  const fromFiles = await list();
  const past = (Date.now() - 60_000) / 1000;
  utimesSync(dir, past, past);
  await list(); // stamps the index
  const fromIndex = await list();
  for (const lines of [fromFiles, fromIndex]) {
    expect(lines).toHaveLength(51);
    expect(lines[0]).toMatch(/^t-3399 +completed/);
    expect(lines[49]).toMatch(/^t-3350 +completed/);
    expect(lines[50]).toBe("… and 3350 more (newest 50 of 3400 shown; --all or --json for every task)");
  }
  // Compared without the age column: two lists seconds apart may see a task's age pass a day.
  const aged = (lines: string[]) => lines.map((line) => line.replace(/ \d+[smhd] /, " <age> "));
  expect(aged(fromIndex)).toEqual(aged(fromFiles));
  // The page's rows are parsed, not copied (the log's hash is not compared): a row on it damaged in place, its
  // stamp still standing, is found so, and the index rebuilt from the files.
  const indexFile = join(dir, ".index.ndjson");
  const log = readFileSync(indexFile, "latin1");
  const row = log.indexOf('"status":"completed"', log.indexOf('"taskId":"t-3399"'));
  writeFileSync(indexFile, `${log.slice(0, row)}"status":"complxted"${log.slice(row + 20)}`, "latin1");
  expect(aged(await list())).toEqual(aged(fromFiles));
  expect(readFileSync(indexFile, "latin1")).not.toContain("complxted");
  // Every row, from the index stamped again (as into a pipe): as the path that reads every summary prints them.
  utimesSync(dir, past, past);
  await list(); // stamps the rebuilt index
  expect(readFileSync(indexFile, "latin1").trimEnd().split("\n").at(-1)).toMatch(/^\["dir"/);
  const all = await list("--all");
  expect(all).toHaveLength(3400);
  expect(aged(all)).toEqual(aged(await list("--all", ALL)));
  expect(await list("--status", "working")).toHaveLength(34); // 34 unfinished: no line under them
});

it("the rows are joined in place only where no row is written over one not yet moved", () => {
  // Rows cut from a log as readRawListing cuts them (each after a prefix), in the log's order and reversed (a log
  // not compacted newest first), with an encoded row among them longer than any prefix.
  const lines = ["a", "bb", "ccc", "dddd"].map((v, i) => `[3,"s${i}",1,true,"x",true,null,{"v":"${v}"}]`);
  const log = () => Buffer.from(`${lines.join("\n")}\n`);
  const cut = (bytes: Buffer) => {
    const from = lines.map((_, i) => bytes.indexOf('{"v"', bytes.indexOf(`"s${i}"`)));
    const to = from.map((f) => bytes.indexOf("]", f));
    const none = new Int32Array(lines.length);
    return { count: lines.length, line: none, created: none, from: Int32Array.from(from), to: Int32Array.from(to) };
  };
  const encoded = `{"v":"${"e".repeat(40)}"}`;
  const text = (rows: Array<{ v: string }>) => `[${rows.map((r) => `{"v":"${r.v}"}`).join(",")}]\n`;
  const values = ["a", "bb", "ccc", "dddd"].map((v) => ({ v }));
  for (const order of [
    [0, 1, 2, 3],
    [3, 2, 1, 0],
    [1, 0, 3, 2],
    [2, 3, 0, 1],
    [3, 1, 2, 0],
  ]) {
    const bytes = log();
    expect(joinRows(bytes, cut(bytes), Int32Array.from(order), []).toString()).toBe(text(order.map((i) => values[i])));
    // The encoded row first, between rows, last.
    for (let at = 1; at <= order.length; at++) {
      const withEncoded = log();
      const mixed = Int32Array.from([...order.slice(0, at), -1, ...order.slice(at)]);
      const expected = `[${Array.from(mixed, (i) => (i < 0 ? encoded : `{"v":"${values[i].v}"}`)).join(",")}]\n`;
      expect(joinRows(withEncoded, cut(withEncoded), mixed, [encoded]).toString()).toBe(expected);
    }
    const withEncoded = log();
    const mixed = Int32Array.from([-1, ...order]);
    const joined = joinRows(withEncoded, cut(withEncoded), mixed, [encoded]).toString();
    expect(joined).toBe(text(order.map((i) => values[i])).replace("[", `[${encoded},`));
    // Newest first from a log oldest first (runs of the log's order, each before the one printed after it): within
    // the log's own bytes, no other memory touched.
    if (["3,2,1,0", "2,3,0,1", "3,1,2,0"].includes(order.join())) {
      const reversed = log();
      const out = joinRows(reversed, cut(reversed), mixed, [encoded]);
      expect([out.buffer, out.byteOffset]).toEqual([reversed.buffer, reversed.byteOffset]);
      // An encoded row as long as the log's bytes allow, longer than the room the lines' other bytes leave at the
      // front: joined elsewhere, the same document.
      const cramped = log();
      const plain = text(order.map((i) => values[i])).length; // the document without it
      const long = `{"v":"${"e".repeat(cramped.length - plain - 1 - 8)}"}`;
      const joined = joinRows(cramped, cut(cramped), mixed, [long]);
      expect([joined.buffer, joined.byteOffset]).not.toEqual([cramped.buffer, cramped.byteOffset]);
      expect(joined.toString()).toBe(
        `[${Array.from(mixed, (i) => (i < 0 ? long : `{"v":"${values[i].v}"}`)).join(",")}]\n`,
      );
    }
    // Read with room after it (as SummaryIndex.raw reads a log for --json): the rows moved there, whatever order.
    const file = join(tempHome(), "log");
    writeFileSync(file, log());
    const roomy = readOwnFile(file, 1 << 20, undefined, true);
    expect(roomAfter(roomy)).toBeGreaterThan(roomy.length);
    expect(joinRows(roomy, cut(roomy), mixed, [encoded]).toString()).toBe(joined);
  }
  expect(roomAfter(log())).toBe(0);
  // A row whose bytes come after the others' (its stem saved again later), printed newest first: no row is packed
  // over one not yet moved (views longer than the lines' prefixes, so that the rows cannot be joined where they are).
  const long = ["a", "b", "c", "d"].map((c) => `{"v":"${c.repeat(100)}"}`);
  const line = (stem: number, view: string) => `[3,"s${stem}",1,true,"x",true,null,${view}]\n`;
  const later = Buffer.from(line(1, long[1]) + line(2, long[2]) + line(3, long[3]) + line(0, long[0]));
  const from = long.map((view) => later.indexOf(view));
  const none = new Int32Array(4);
  const rows = {
    count: 4,
    line: none,
    created: none,
    from: Int32Array.from(from),
    to: Int32Array.from(from, (f, i) => f + long[i].length),
  };
  expect(joinRows(later, rows, Int32Array.from([3, 2, 1, 0]), []).toString()).toBe(
    `[${[...long].reverse().join(",")}]\n`,
  );
});

it("a line of list made from a row's bytes is rowLine's, byte for byte; a view it cannot take whole is parsed", () => {
  const now = Date.UTC(2026, 0, 2);
  const view = (over: Record<string, unknown>) => ({
    taskId: "t-1",
    server: "bench",
    tool: "tool",
    generation: "v2",
    status: "completed",
    statusMessage: "done",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ttlMs: null,
    pollIntervalMs: 1000,
    expired: false,
    gone: null,
    ...over,
  });
  const taken = [
    {},
    { statusMessage: null },
    { statusMessage: "" },
    { statusMessage: "m".repeat(90), taskId: "i".repeat(50) },
    { gone: "lost", status: "input_required" },
    { gone: "" },
    { ttlMs: 0, pollIntervalMs: 123456, createdAt: "not a time" },
    { createdAt: "2026-01-01T00:00:00Z{x}", tool: "{taskId:", server: "a,b]}" },
  ];
  const parsedOnly = [
    { taskId: 'q"uote' }, // an escape
    { statusMessage: "tab\there" }, // escaped by JSON.stringify: a control character
    { ttlMs: 1.5 },
    { ttlMs: -1 },
    { ttlMs: 1e21 },
    { status: "complxted" },
    { expired: true },
  ];
  for (const [over, expected] of [
    ...taken.map((o) => [o, true] as const),
    ...parsedOnly.map((o) => [o, false] as const),
  ]) {
    const v = view(over);
    const line = `[3,"s",1,true,null,true,null,${JSON.stringify(v)}]`;
    const bytes = Buffer.from(`${line}\n`);
    const from = bytes.indexOf('{"taskId":');
    const to = line.length - 1;
    const at = new Int32Array(VIEW_FIELD.size);
    expect(plainViewFields(bytes, from, to, at), JSON.stringify(over)).toBe(expected);
    if (!expected) continue;
    const out = Buffer.alloc(to - from + LINE_SPARE_BYTES);
    const end = putRowLine(out, 0, bytes, at, age(v.createdAt, now));
    expect(out.toString("latin1", 0, end)).toBe(`${rowLine(v as HandleView, now)}\n`);
  }
  // A row cut short, or forged with a key more: never taken.
  const good = Buffer.from(`[3,"s",1,true,null,true,null,${JSON.stringify(view({}))}]\n`);
  const from = good.indexOf("{");
  expect(plainViewFields(good, from, good.length - 5, new Int32Array(14))).toBe(false);
  const extra = Buffer.from(`[3,"s",1,true,null,true,null,${JSON.stringify({ ...view({}), more: 1 })}]\n`);
  expect(plainViewFields(extra, extra.indexOf("{"), extra.length - 2, new Int32Array(14))).toBe(false);
});

it("a task saved after the stamp: list --json still copies the stamped rows, parses the lines after it, and lists the directory", async () => {
  const home = tempHome();
  const dir = await stampedStore(home);
  const indexFile = join(dir, ".index.ndjson");
  expect((await runInProcess(["list", "--json"], { home })).code).toBe(0); // stamped for the directory's mtime as it is
  // A row rewritten with two keys swapped (the same view, not as JSON.stringify writes it) and the stamp's hash made
  // its own: printed as it is only where rows are copied, re-encoded where they are parsed.
  const log = readFileSync(indexFile, "latin1");
  const row = log.indexOf('"ttlMs":null,"pollIntervalMs":1000', log.indexOf('"taskId":"t-5"'));
  const swapped = '"pollIntervalMs":1000,"ttlMs":null';
  const edited = `${log.slice(0, row)}${swapped}${log.slice(row + swapped.length)}`;
  const stamp = JSON.parse(edited.trimEnd().split("\n").at(-1)!);
  stamp[4] = createHash("sha256")
    .update(Buffer.from(edited.slice(0, stamp[3]), "latin1"))
    .digest("hex");
  writeFileSync(indexFile, `${edited.slice(0, stamp[3])}${JSON.stringify(stamp)}\n`, "latin1");
  const list = async (...args: string[]) => {
    const run = await runInProcess(["list", "--json", ...args], { home });
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  };
  const ids = (json: string) => (JSON.parse(json) as Array<{ taskId: string }>).map((r) => r.taskId).sort();
  expect(await list()).toContain(swapped);

  await writer(home, "create", "late", "1", "10", "completed"); // its line after the stamp, the directory's mtime now
  const after = await list();
  expect(after).toContain(swapped); // the stamped rows copied: no full read of the log
  expect(after.startsWith('[{"taskId":"late-0"')).toBe(true);
  expect(JSON.parse(after)).toEqual(JSON.parse(await list(ALL)));
  // Files added or removed by hand since the stamp: the directory is not as the lines say, every line is read.
  saveHandle(dir, "by-hand", 9000, true);
  rmSync(join(dir, `${fileStem("t-7", "00000000")}.json`));
  const healed = await list();
  expect(ids(healed)).toEqual(ids(await list(ALL)));
  expect(ids(healed)).toContain("by-hand");
  expect(ids(healed)).not.toContain("t-7");
  // Past the stamp's margin, the listing that finds the directory as the lines say stamps it again.
  await writer(home, "create", "later", "1", "10", "completed");
  const past = (Date.now() - 60_000) / 1000;
  utimesSync(dir, past, past);
  const listed = await list();
  const last = JSON.parse(readFileSync(indexFile, "latin1").trimEnd().split("\n").at(-1)!);
  expect(last.slice(0, 3)).toEqual(["dir", statSync(dir).mtimeMs, 3400 + 2]);
  expect(await list()).toBe(listed);
});

it("a stem on many lines (saved again, finished since, removed and saved back): list --json copies each one's latest", async () => {
  const home = tempHome();
  const dir = await stampedStore(home);
  const indexFile = join(dir, ".index.ndjson");
  const list = async (...args: string[]) => {
    const run = await runInProcess(["list", "--json", ...args], { home });
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  };
  const restamp = async () => {
    const past = (Date.now() - 60_000) / 1000;
    utimesSync(dir, past, past);
    await list(); // lists the directory, finds it as the lines say, stamps it
  };
  await writer(home, "update", "t-5", "3", "again"); // three more lines of t-5, each after the last
  saveHandle(dir, "t-100", 100, true); // finished since: its new line is appended by the next reader
  rmSync(join(dir, `${fileStem("t-7", "00000000")}.json`));
  await list(); // t-100 read again, t-7's removal appended
  saveHandle(dir, "t-7", 7, true);
  await list(); // t-7 back
  await restamp();
  const log = readFileSync(indexFile, "latin1");
  const lines = log.trimEnd().split("\n");
  const t5 = lines.filter((line) => line.includes('"taskId":"t-5"'));
  expect(t5).toHaveLength(4);
  expect(lines.filter((line) => line.includes('"taskId":"t-100"'))).toHaveLength(2);
  expect(lines.filter((line) => line.startsWith("[0,"))).toHaveLength(1); // t-7's removal
  // t-5's first line made stale and its last one re-keyed (the same view, keys swapped), the stamp's checksum made
  // theirs: only a copy of each stem's latest line prints the swapped keys and never the stale message.
  const first = log.indexOf(t5[0]);
  const last = log.indexOf(t5[3]);
  const swappedAt = log.indexOf('"ttlMs":null,"pollIntervalMs":1000', last);
  const swapped = '"pollIntervalMs":1000,"ttlMs":null';
  let edited = `${log.slice(0, swappedAt)}${swapped}${log.slice(swappedAt + swapped.length)}`;
  const stale = edited.indexOf("message of t-5", first);
  edited = `${edited.slice(0, stale)}message of x-5${edited.slice(stale + 14)}`;
  const stamp = JSON.parse(edited.trimEnd().split("\n").at(-1)!);
  stamp[4] = crc32(Buffer.from(edited.slice(0, stamp[3]), "latin1"))
    .toString(16)
    .padStart(8, "0");
  writeFileSync(indexFile, `${edited.slice(0, stamp[3])}${JSON.stringify(stamp)}\n`, "latin1");
  const copied = await list();
  expect(copied).toContain(swapped);
  expect(copied).not.toContain("message of x-5");
  const rows = JSON.parse(copied) as Array<{ taskId: string; status: string }>;
  expect(rows).toHaveLength(3400);
  expect(rows).toEqual(JSON.parse(await list(ALL)));
  expect(rows.find((row) => row.taskId === "t-100")?.status).toBe("completed");
});
