// A child process that hammers the handle store, for the store's concurrency and crash tests.
//   store-writer <home> create <prefix> <count> <payloadBytes> [completed]   saves <count> new handles
//   store-writer <home> update <idOrPrefix> <count> <tag>        adds <count> answered keys to one handle
//   store-writer <home> timed <prefix> <count> <payloadBytes>    saves <count> handles, prints ms per save
//   store-writer <home> churn <prefix> <payloadBytes>            rewrites handles forever (to be killed)
import { HandleStore } from "../../src/store/handles.js";
import { fileStem } from "../../src/store/handle-file.js";
import type { Handle } from "../../src/model.js";

const [home, mode, target, countArg, extra, finished] = process.argv.slice(2);
const store = new HandleStore(home);

function handle(taskId: string, payload: number): Handle {
  // STORE_WRITER_AGE_MS backdates the handle (the dashboard benchmark's idle store: tasks that ended an hour ago).
  const now = new Date(Date.now() - Number(process.env.STORE_WRITER_AGE_MS ?? 0)).toISOString();
  return {
    version: 1,
    taskId,
    server: { name: "bench", descriptor: { transport: "http", url: "http://127.0.0.1:1/mcp" } },
    resume: { generation: "v2", protocolVersion: "2026-07-28", serverName: "bench" },
    tool: "bench",
    arguments: { blob: "x".repeat(payload) },
    createdAt: now,
    updatedAt: now,
    ttlMs: 300000,
    pollIntervalMs: 1000,
    last: { taskId, status: "working", statusMessage: taskId, inputRequests: [] },
    history: [{ status: "working", at: now }],
    answered: [],
  };
}

if (mode === "timed") {
  // Prints the mean time of one save, in ms, over <count> saves.
  const started = performance.now();
  for (let i = 0; i < Number(countArg); i++) {
    const id = `${target}-${i}`;
    await store.create(fileStem(id, "0000000000"), handle(id, Number(extra)));
  }
  console.log(((performance.now() - started) / Number(countArg)).toFixed(3));
} else if (mode === "create") {
  for (let i = 0; i < Number(countArg); i++) {
    const id = `${target}-${i}`;
    const h = handle(id, Number(extra));
    if (finished === "completed") {
      h.last.status = "completed";
      h.history.push({ status: "completed", at: h.createdAt });
      h.outcome = { taskId: id, status: "completed", result: { content: [{ type: "text", text: `result ${i}` }] } };
    }
    await store.create(fileStem(id, "0000000000"), h);
  }
} else if (mode === "update") {
  const { stem } = await store.find(target);
  for (let i = 0; i < Number(countArg); i++) {
    await store.update(stem, (h) => {
      h.answered.push(`${extra}-${i}`);
    });
  }
} else if (mode === "churn") {
  for (let i = 0; ; i++) {
    const id = `${target}-${i % 20}`;
    await store.create(fileStem(id, "0000000000"), handle(id, Number(countArg)));
  }
}
