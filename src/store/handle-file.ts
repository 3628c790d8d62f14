// A handle file: its name for a task id, its summary for the index, and the parse that refuses what is not one.
import type { Handle, HandleSummary } from "../model.js";
import { isServerDescriptor } from "../protocol/server.js";
import { isTerminal, TASK_STATUSES } from "../protocol/wire.js";
import { sha256Hex } from "../hash.js";
import { MAX_HANDLE_BYTES } from "../limits.js";
import { readOwnText, UnsafeFileError } from "./safe-fs.js";

/**
 * A file name for a task id: safe characters kept (so prefixes stay prefixes), others %-encoded, long ids cut and
 * hashed. An id with a lone surrogate (which UTF-8 writes as U+FFFD) is hashed too, so that no two ids share a name.
 */
export function fileStem(taskId: string, serverKey: string): string {
  let safe = "";
  for (const byte of Buffer.from(taskId, "utf8")) {
    const ch = String.fromCharCode(byte);
    safe += /[A-Za-z0-9_-]/.test(ch) ? ch : `%${byte.toString(16).padStart(2, "0")}`;
  }
  if (safe.length > 120 || /\p{Cs}/u.test(taskId)) safe = `${safe.slice(0, 100)}~${sha256Hex(taskId).slice(0, 16)}`;
  // An empty id would make a hidden file (".<key>.json") that no listing shows. A lone "%" is no other id's name
  // (every other "%" starts an escape of two hex digits), so "" gets a visible name of its own.
  if (safe === "") safe = "%";
  return `${safe}.${serverKey.slice(0, 8)}`;
}

/** The summary of a handle kept in the index (see summary-index.ts). */
export function summarize(stem: string, handle: Handle, mtime: number): HandleSummary {
  return {
    stem,
    mtime,
    taskId: handle.taskId,
    server: handle.server.name,
    tool: handle.tool,
    generation: handle.resume.generation,
    status: handle.outcome?.status ?? handle.last.status,
    statusMessage: handle.last.statusMessage ?? null,
    createdAt: handle.createdAt,
    taskCreatedAt: handle.last.createdAt ?? null,
    updatedAt: handle.updatedAt,
    ttlMs: handle.ttlMs ?? null,
    pollIntervalMs: handle.pollIntervalMs ?? null,
    gone: handle.gone?.reason ?? null,
    final: Boolean(handle.outcome) || isTerminal(handle.last.status),
    statusAt: handle.history.at(-1)?.at ?? null,
    outcome: Boolean(handle.outcome),
  };
}

/** Told of each file a listing skipped: its name and, in a few words, why. */
export type OnBad = (file: string, reason: string) => void;

/** Why a handle file was skipped, in a few words ("a symbolic link", "not a task handle", "not JSON"...). */
export function badReason(error: unknown): string {
  if (error instanceof UnsafeFileError) return error.reason;
  if (error instanceof SyntaxError) return "not JSON";
  if (error instanceof NotAHandleError) return error.message;
  return (error as NodeJS.ErrnoException).code ?? "unreadable";
}

class NotAHandleError extends Error {}

/** Reads a handle file under the store's checks (a regular file of ours, at most MAX_HANDLE_BYTES). */
export function readHandle(path: string): Handle {
  return parseHandle(readOwnText(path, MAX_HANDLE_BYTES));
}

const STATUSES: ReadonlySet<unknown> = new Set(TASK_STATUSES);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const optString = (v: unknown) => v === undefined || v === null || typeof v === "string";
const optNumber = (v: unknown) => v === undefined || v === null || typeof v === "number";
const optBoolean = (v: unknown) => v === undefined || typeof v === "boolean";

/**
 * Parses a handle file, refusing anything that is not one: every field that a listing, the dashboard or a command
 * reads is checked for its type here, so that one malformed file (imported, planted, edited) is skipped as "not a
 * task handle" instead of failing later, for the whole store, in whatever code touched it first.
 */
export function parseHandle(text: string): Handle {
  const value = JSON.parse(text) as unknown;
  const fail = (what: string): never => {
    throw new NotAHandleError(`not a task handle (bad ${what})`);
  };
  if (!isObject(value) || value.version !== 1) return fail("version");
  if (typeof value.taskId !== "string") fail("taskId");
  if (typeof value.tool !== "string") fail("tool");
  const server = value.server;
  if (!isObject(server) || typeof server.name !== "string" || !isServerDescriptor(server.descriptor)) fail("server");
  if (!isObject(value.resume) || typeof value.resume.generation !== "string") fail("resume");
  if (!isObject(value.arguments)) fail("arguments");
  if (typeof value.createdAt !== "string" || typeof value.updatedAt !== "string") fail("times");
  if (!optNumber(value.ttlMs) || !optNumber(value.pollIntervalMs)) fail("ttl or poll interval");
  const last = value.last;
  if (!isObject(last) || !STATUSES.has(last.status) || !optString(last.statusMessage) || !optString(last.createdAt))
    fail("last status");
  if (
    !Array.isArray(value.history) ||
    !value.history.every(
      (h) => isObject(h) && STATUSES.has(h.status) && typeof h.at === "string" && optString(h.statusMessage),
    )
  )
    fail("history");
  if (!Array.isArray(value.answered) || !value.answered.every((key) => typeof key === "string")) fail("answered");
  if (value.outcome !== undefined && !(isObject(value.outcome) && STATUSES.has(value.outcome.status))) fail("outcome");
  if (
    value.gone !== undefined &&
    !(isObject(value.gone) && typeof value.gone.reason === "string" && optBoolean(value.gone.notFound))
  )
    fail("gone");
  // Marks of where the task or its question went: one that is not well formed is dropped (the handle stays usable).
  if (value.imported !== undefined && !(isObject(value.imported) && typeof value.imported.at === "string"))
    delete value.imported;
  if (
    value.questionDropped !== undefined &&
    !(
      isObject(value.questionDropped) &&
      typeof value.questionDropped.at === "string" &&
      typeof value.questionDropped.reason === "string"
    )
  )
    delete value.questionDropped;
  if (value.via !== undefined && value.via !== "serve") delete value.via;
  // Progress is shown, never acted on: one that is not a number is dropped, not a reason to refuse the handle.
  if (value.progress !== undefined && !(isObject(value.progress) && Number.isFinite(value.progress.progress)))
    delete value.progress;
  else if (
    isObject(value.progress) &&
    value.progress.first !== undefined &&
    !(
      isObject(value.progress.first) &&
      Number.isFinite(value.progress.first.progress) &&
      typeof value.progress.first.at === "string"
    )
  )
    delete value.progress.first;
  return value as unknown as Handle;
}
