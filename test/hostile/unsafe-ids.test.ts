// Task ids that attack paths and shells (test/helpers/unsafe-ids.ts), from test/servers/hostile-server.ts's
// unsafe-ids case: each is stored inside <home>/tasks, listed exactly, found by id, prefix and shown form, printed
// clean, and hinted as a command line that /bin/sh runs with that one argument (in a sandbox that records it). The
// CLI in-process; the two generations side by side, each with its servers and homes.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { sanitize, sanitizeLine } from "../../src/sanitize.js";
import { fileStem } from "../../src/store/handle-file.js";
import { events, homes, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { BOTH, expectClean, withHttp, stored } from "../helpers/hostile.js";
import { startHostileHttp } from "../helpers/servers.js";
import { UNSAFE_IDS } from "../helpers/unsafe-ids.js";

/**
 * Runs a command in-process. Its `timeoutMs` (120 s unless given) is a hang-only bound: the runner fails the test when
 * the command has not ended by then, far past any configured timeout it is meant to keep; how fast is the bench's.
 * Not the helpers' 45 s: three commands at a time per generation share this worker's event loop, and beside a second
 * copy of the suite a respond whose task had completed took longer than that to return.
 */
const runCli: typeof runInProcess = (args, options) => runInProcess(args, { timeoutMs: 120_000, ...options });

/** What the shell must never be made to do: the side effects the ids in UNSAFE_IDS attempt. */
function pwned(): string[] {
  return readdirSync("/tmp").filter((name) => name.startsWith("mcp-task-pwned"));
}

/** Every path under `root`, relative to it (directories end with /). */
function tree(root: string, at = ""): string[] {
  return readdirSync(join(root, at), { withFileTypes: true }).flatMap((entry) => {
    const path = join(at, entry.name);
    return entry.isDirectory() ? [`${path}/`, ...tree(root, path)] : [path];
  });
}

/** Runs `work` on every item, `width` at a time. */
async function pool<T>(items: T[], width: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index], index);
      }
    }),
  );
}

/**
 * A place to run a hinted command line through /bin/sh: a PATH where `mcp-task` is a script that records its
 * arguments (one file per run), and a HOME of its own with a canary in it (for `x; rm -rf ~`).
 */
function shellSandbox() {
  const root = mkdtempSync(join(tmpdir(), "mcp-task-sh-"));
  for (const dir of ["bin", "home", "record"]) mkdirSync(join(root, dir));
  writeFileSync(
    join(root, "bin", "mcp-task"),
    '#!/bin/sh\nfor a in "$@"; do printf \'%s\\0\' "$a"; done > "$RECORD/run-$$"\n',
    { mode: 0o755 },
  );
  writeFileSync(join(root, "home", "canary"), "alive");
  return {
    /** Runs the line; returns the argument lists mcp-task was started with, and what sh wrote. */
    run(line: string) {
      for (const file of readdirSync(join(root, "record"))) rmSync(join(root, "record", file));
      const sh = spawnSync("/bin/sh", ["-c", line], {
        env: { PATH: `${join(root, "bin")}:/usr/bin:/bin`, HOME: join(root, "home"), RECORD: join(root, "record") },
        encoding: "utf8",
        timeout: 10_000,
      });
      const runs = readdirSync(join(root, "record")).map((file) =>
        readFileSync(join(root, "record", file), "utf8")
          .split("\0")
          .slice(0, -1),
      );
      return { code: sh.status, output: sh.stdout + sh.stderr, runs, home: readdirSync(join(root, "home")) };
    },
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The command lines a text run's stderr names (hints: "resume with: mcp-task watch <id>" and the like). */
function hintedCommands(stderr: string): string[] {
  return [...stderr.matchAll(/(?:^hint: |with: |result: )(mcp-task (?:watch|result|respond|get|cancel) .*)$/gm)].map(
    (m) => m[1].replace(/\s+\(or --decline\)$/, ""),
  );
}

// The two generations side by side: each has its own servers, homes and shell sandbox.
describe.concurrent("unsafe task ids", () => {
  it("invisible ids (v2): an id with zero-width characters, a word joiner, tags or a soft hyphen is shown without them, and found by what is shown", async () => {
    const invisible = UNSAFE_IDS.filter(
      (id) => /[\u200b-\u200d\u2060\ufeff\u00ad]|\p{Cf}/u.test(id) && !/[\u202e]/.test(id),
    );
    expect(invisible.length).toBeGreaterThanOrEqual(2);
    await withHttp("unsafe-ids", "v2", async (server) => {
      const home = tempHome();
      for (const id of invisible) {
        const call = await runCli(["call", "unsafe", `n=${UNSAFE_IDS.indexOf(id)}`, "--detach", "-s", server.url], {
          home,
        });
        expect(call.code, call.stderr).toBe(0);
        expectClean(call);
        const shown = call.stdout.trim();
        expect(shown).not.toBe(id);
        expect(shown).toBe(sanitizeLine(id));
        const get = await runCli(["get", "--", shown], { home });
        expect(get.code, get.stderr).toBe(0);
        expectClean(get);
        expect(get.stdout.startsWith(`${shown}  `), get.stdout).toBe(true);
        const json = await runCli(["get", "--json", "--", shown], { home });
        expectClean(json);
        expect(JSON.parse(json.stdout).taskId).toBe(id);
      }
      for (const args of [["list"], ["list", "--json"]]) expectClean(await runCli(args, { home }));
    });
  });

  // Answered and followed to the end (respond, result, get): the ids a shell would act on most.
  const TO_THE_END = [
    "$(touch /tmp/mcp-task-pwned-$$)",
    "x; rm -rf ~",
    "-rf /",
    "x\nmcp-task: fake line",
    'it\'s "quoted" !$HOME',
  ];

  for (const generation of BOTH) {
    it(`unsafe-ids (${generation}): ids that attack paths and shells are stored inside <home>/tasks, listed exactly, found by id, prefix and shown form, printed clean, and hinted so that sh runs mcp-task with that one argument`, async () => {
      for (const name of pwned()) rmSync(join("/tmp", name), { force: true }); // left by an earlier failing run
      const passwd = statSync("/etc/passwd").mtimeMs;
      // The home lies deep in a sandbox, so that a path escaping it by any number of ../ lands where we look.
      const sandbox = mkdtempSync(join(tmpdir(), "mcp-task-unsafe-"));
      const home = join(sandbox, "a", "b", "c", "d", "home");
      mkdirSync(home, { recursive: true, mode: 0o700 });
      homes.push(home);
      const textHome = tempHome();
      const sh = shellSandbox();
      const shown = (id: string) => sanitizeLine(id);
      // argv cannot carry NUL, and a lone surrogate arrives as U+FFFD: those ids are typed as shown.
      const typable = (id: string) => !id.includes("\u0000") && !/\p{Cs}/u.test(id);
      const server = await startHostileHttp("unsafe-ids", generation);
      const second = await startHostileHttp("unsafe-ids", generation);
      try {
        // call --detach --json saves each (the server gives the task of `unsafe n` the id UNSAFE_IDS[n]).
        await pool([...UNSAFE_IDS.entries()], 3, async ([n, id]) => {
          const call = await runCli(["call", "unsafe", `n=${n}`, "--detach", "--json", "-s", server.url], { home });
          expect(call.code, call.stderr).toBe(0);
          expectClean(call);
          expect(events(call.stdout)).toEqual([
            expect.objectContaining({ type: "task", taskId: id, status: "working" }),
          ]);
        });
        // The handles are files directly in <home>/tasks, one per id; nothing was made anywhere else.
        const files = readdirSync(join(home, "tasks")).filter(
          (name) => name.endsWith(".json") && !name.startsWith("."),
        );
        expect(files.map((name) => JSON.parse(readFileSync(join(home, "tasks", name), "utf8")).taskId).sort()).toEqual(
          [...UNSAFE_IDS].sort(),
        );
        for (const name of files) expect(name).toMatch(/^[A-Za-z0-9_%~-]+\.[0-9a-f]{8}\.json$/);
        // A handle's lock is a directory in <home>/tasks while a write holds it: CI once listed the tree while one was
        // still held (the lock of a hostile id, inside <home>/tasks). One that outlasts 10 s is a lock left behind,
        // and the checks below fail on it.
        await vi
          .waitFor(
            () => expect(readdirSync(join(home, "tasks")).filter((name) => name.startsWith(".lock-"))).toEqual([]),
            { timeout: 10_000, interval: 100 },
          )
          .catch(() => {});
        const paths = tree(sandbox);
        for (const path of paths)
          expect(path).toMatch(
            /^a\/(b\/(c\/(d\/(home\/(settings\.json|tasks\/|tasks\/[^/]+|brokers\/|brokers\/[0-9a-f]{16}(-[0-9a-f]{12})?\.(sock|json|json\.spec|log|trace|trace\.1|start\.lock\/))?)?)?)?)?$/,
          );
        expect(paths.filter((path) => /^a\/b\/c\/d\/home\/tasks\/.+\/$/.test(path))).toEqual([]);
        expect(pwned()).toEqual([]);

        // list --json shows each exact id; the text list is clean.
        expect((await stored(home)).map((h) => h.taskId).sort()).toEqual([...UNSAFE_IDS].sort());
        expectClean(await runCli(["list"], { home }));

        /** `get <word>` in text finds the task of `id` (its first line is the id as shown) and prints it clean. */
        const finds = async (word: string, id: string) => {
          const get = await runCli(["get", "--", word], { home });
          expect(get.code, `get ${JSON.stringify(word)}: ${get.stderr}`).toBe(0);
          expectClean(get);
          expect(
            get.stdout.split("\n")[0].startsWith(`${shown(id)}  `),
            `get ${JSON.stringify(word)}: ${get.stdout}`,
          ).toBe(true);
          return get;
        };
        /** Runs each command line a hint names through sh: mcp-task runs once, with the id as shown as one argument. */
        const checkHints = (id: string, text: string, seen: Set<string>) => {
          for (const line of hintedCommands(text)) {
            const verb = line.split(" ")[1];
            seen.add(verb);
            const ran = sh.run(line);
            expect({ code: ran.code, output: ran.output, home: ran.home }, line).toEqual({
              code: 0,
              output: "",
              home: ["canary"],
            });
            const word = shown(id);
            expect(ran.runs, line).toEqual([
              [
                verb,
                ...(verb === "respond" ? ["--input", "{...}"] : []),
                ...(word.startsWith("-") ? ["--"] : []),
                word,
              ],
            ]);
            expect(pwned(), line).toEqual([]);
          }
        };

        await pool([...UNSAFE_IDS.entries()], 3, async ([n, id]) => {
          const word = typable(id) ? id : shown(id);
          const prefix = [...Array(word.length).keys()]
            .reverse()
            .map((k) => word.slice(0, k))
            .find(
              (p) =>
                p.length >= 4 &&
                UNSAFE_IDS.filter((other) => other.startsWith(p) || shown(other).startsWith(p)).length === 1,
            );
          // get, watch and result each find it, by turns by the exact id (as typed), by the longest unambiguous
          // prefix, and by the id as shown (what hints and `call --detach` print).
          const forms = [word, prefix ?? word, shown(id)];
          const given = (k: number) => forms[(n + k) % 3];
          const seen = new Set<string>();
          await finds(given(0), id);
          // The task waits for input by now: watch and result stop at once, and say how to go on.
          const watch = await runCli(["watch", "--timeout", "1ms", "--", given(1)], { home });
          expect([6, 7], watch.stderr).toContain(watch.code);
          expectClean(watch);
          expect(watch.stderr).toContain(`following task ${shown(id)} (`);
          checkHints(id, watch.stderr, seen);
          const early = await runCli(["result", "--no-wait", "--", given(2)], { home });
          expect(early.code, early.stderr).toBe(7);
          expectClean(early);
          expect(early.stderr).toContain(`task ${shown(id)} is still`);
          checkHints(id, early.stderr, seen);
          if (TO_THE_END.includes(id)) {
            const respond = await runCli(["respond", "--input", '{"ok":true}', "--", word], { home });
            expect(respond.code, respond.stderr).toBe(0);
            expectClean(respond);
            checkHints(id, respond.stdout, seen);
            const result = await runCli(["result", "--", word], { home });
            expect(result.code, result.stderr).toBe(0);
            expectClean(result);
            expect(result.stdout).toBe(`done ${sanitize(id)}\n`);
            checkHints(id, (await finds(word, id)).stdout, seen);
            expect(seen, JSON.stringify(id)).toContain("result");
          }
          expect(seen.size, `no hint checked for ${JSON.stringify(id)} (${n})`).toBeGreaterThan(0);
        });

        // The long id: prefixes whose file-name form is longer than the 100 characters kept of a long id's name.
        const long = UNSAFE_IDS.find((id) => id.length > 250)!;
        expect(fileStem(long.slice(0, 57), "").length).toBeGreaterThan(101);
        for (const length of [57, long.length - 1]) await finds(long.slice(0, length), long);

        // call --detach in text: stdout is the id as shown, one clean line.
        await pool(
          UNSAFE_IDS.filter((id) => shown(id) !== id),
          3,
          async (id) => {
            const call = await runCli(["call", "unsafe", `n=${UNSAFE_IDS.indexOf(id)}`, "--detach", "-s", second.url], {
              home: textHome,
            });
            expect(call.code, call.stderr).toBe(0);
            expectClean(call);
            expect(call.stdout).toBe(`${shown(id)}\n`); // which finds it (above)
          },
        );
        expect(pwned()).toEqual([]);
        expect(statSync("/etc/passwd").mtimeMs).toBe(passwd);
        expect(
          tree(sandbox).every((path) => path.startsWith("a/b/c/d/home/") || "a/b/c/d/home/".startsWith(path)),
        ).toBe(true);
      } finally {
        sh.dispose();
        await server.stop();
        await second.stop();
      }
    }, 480_000); // some 130 commands: a minute on an idle machine, four on a busy one
  }
});
