// What this home cannot reach of a saved task, said at once instead of waited for: a stdio task imported from another
// home (it runs in that home's broker: a stdio task lives in the process that runs its server), and a V1 question
// that cannot come (the keeper that held it stopped, or it was handed to the keeper of the home the task came from;
// a V1 server hands a question over once). The commands that would wait (`respond`, `watch`, `get`) ask here first.
import { join } from "node:path";
import { HeldElsewhereError, QuestionLostError, ServerError } from "../errors.js";
import { readOwnText, writeOwnFile } from "../store/safe-fs.js";
import type { Clock, Handle } from "../model.js";
import { QUESTION_REDELIVERY_STEP_MS, QUESTION_REDELIVERY_WAIT_MS } from "../limits.js";
import { questionKeeperOf, type Snapshot } from "../protocol/wire.js";
import { shellWord, sanitizeLine } from "../sanitize.js";

/**
 * A home's mark on the handles it exports: a random id kept in the home (`home-id`), made on first use. Not its path,
 * nor a hash of it (which a list of usual paths would reverse): an export tells nothing of this machine's folders.
 */
export function homeMark(home: string): string | undefined {
  const file = join(home, "home-id");
  try {
    const mark = readOwnText(file, 64).trim();
    if (/^[0-9a-f]{16,64}$/.test(mark)) return mark;
  } catch {
    /* none yet (or not a file of ours): made below */
  }
  // Web Crypto, not node:crypto: that module is kept out of every command's start (test/build/code-cache.test.ts).
  const mark = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(16))).toString("hex");
  try {
    writeOwnFile(file, mark);
    return mark;
  } catch {
    return undefined; // a home that cannot be written: its exports say no home (imported anywhere, they count as moved)
  }
}

/** The error for a stdio task imported from another home, still running there as far as its handle says. */
export function heldElsewhere(handle: Handle): HeldElsewhereError | undefined {
  if (!handle.imported || handle.outcome || handle.server.descriptor.transport !== "stdio") return undefined;
  const id = shellWord(handle.taskId);
  return new HeldElsewhereError(
    `task ${sanitizeLine(handle.taskId)} was imported from another home, where its broker runs it: a stdio task ` +
      "lives in the process that runs its server, which this home cannot reach",
    `follow it in the home it was exported from: mcp-task watch ${id} (then export it again, with its outcome)`,
    handle.taskId,
  );
}

/**
 * Since when a task has waited in input_required, by its history (undefined when its last status is another).
 * A question asked after a mark is a new one, which can come.
 */
function waitingSince(handle: Handle): string | undefined {
  const entry = handle.history.at(-1);
  return handle.last.status === "input_required" && entry?.status === "input_required" ? entry.at : undefined;
}

/**
 * The error for a task whose V1 question cannot come here: `read` (just read, through this home's keeper) waits for
 * input and lists no question, and the handle says the question went where this home cannot reach it before the task
 * began to wait (dropped with its keeper, or held by the keeper of the home it was imported from).
 */
export function questionLost(handle: Handle, read: Snapshot): QuestionLostError | undefined {
  // Only where questions are handed over once (V1): elsewhere the server lists a question until it is answered.
  if (
    read.status !== "input_required" ||
    read.inputRequests.length > 0 ||
    questionKeeperOf(handle.resume) === undefined
  )
    return undefined;
  const since = waitingSince(handle);
  if (since === undefined) return undefined;
  const id = shellWord(handle.taskId);
  const name = `task ${sanitizeLine(handle.taskId)}`;
  const giveUp = `or cancel it: mcp-task cancel ${id} (or wait for the server to give up: mcp-task wait ${id})`;
  if (handle.questionDropped && Date.parse(since) <= Date.parse(handle.questionDropped.at))
    return new QuestionLostError(
      `${name} waits for an answer to a question that cannot come: ${sanitizeLine(handle.questionDropped.reason)} ` +
        "(a 2025-11-25 server hands a question over once)",
      `start the task again, ${giveUp}`,
      handle.taskId,
    );
  if (handle.imported && Date.parse(since) <= Date.parse(handle.imported.at))
    return new QuestionLostError(
      `${name} was imported while it waited for an answer: its question was handed to the keeper of the home it ` +
        "came from (a 2025-11-25 server hands a question over once), not to this home",
      `answer it in the home it was exported from: mcp-task respond ${id}; ${giveUp}`,
      handle.taskId,
    );
  return undefined;
}

/**
 * Before a command waits on a task whose handle says its question went out of reach (dropped, or imported): reads,
 * and QuestionLostError where the task still waits for that question and none has come within
 * QUESTION_REDELIVERY_WAIT_MS. Not at the first read: a 2025-11-25 server may hand the question again to the keeper
 * this command just started (the demo server does, its session revived from its store), and that keeper asks for it
 * only once it has seen the task wait. The read, for the follow to start from; undefined (no read) for any other
 * handle.
 */
export async function readUnlessLost(
  handle: Handle,
  wire: { getTask(taskId: string, signal?: AbortSignal): Promise<Snapshot> },
  clock: Pick<Clock, "monotonic" | "sleep">,
  signal?: AbortSignal,
): Promise<Snapshot | undefined> {
  if (!handle.questionDropped && !handle.imported) return undefined;
  const until = clock.monotonic() + QUESTION_REDELIVERY_WAIT_MS;
  for (;;) {
    let read: Snapshot;
    try {
      read = await wire.getTask(handle.taskId, signal);
    } catch (error) {
      // A server that cannot be reached for a moment (restarting): the follow, with its backoff, takes it from here.
      if (error instanceof ServerError && error.transient) return undefined;
      throw error;
    }
    const lost = questionLost(handle, read);
    if (!lost) return read;
    if (clock.monotonic() >= until) throw lost;
    await clock.sleep(QUESTION_REDELIVERY_STEP_MS, signal);
  }
}
