// A finished row's view in the index's bytes, read without making it: where the fields a line of `list` shows lie
// (plainViewFields), or, for any other view, parsed and checked (rawView).
//
// Its fast path serves only what the general path proves it may. The general path is rawView: JSON.parse, then
// decodeView's checks (a status among TASK_STATUSES, each field of its type). plainViewFields takes only a view that
// path would take and read the same: the twelve keys JSON.stringify writes for summaryView, in their order, every
// string printable ASCII without an escape (its bytes are its characters), every number a plain integer, `expired`
// false (a finished row's), the status one of TASK_STATUSES; anything else it leaves to rawView.
import type { HandleView } from "../model.js";
import { TASK_STATUSES } from "../protocol/wire.js";
import { decodeView } from "./index-line.js";
import { BACKSLASH, QUOTE, sameBytes, startsAt } from "./json-bytes.js";

/** A raw row's view, parsed and checked (see RawTrust "parsed"); undefined if it is not one. */
export function rawView(bytes: Buffer, from: number, to: number): HandleView | undefined {
  try {
    return decodeView(JSON.parse(bytes.toString("utf8", from, to)));
  } catch {
    return undefined;
  }
}

/**
 * Where a raw row's view (bytes `from`..`to`) holds the fields a line of `list` shows, for a view exactly as
 * JSON.stringify writes one (its twelve keys in their order, no space) whose strings are printable ASCII without an
 * escape (every byte 0x20 to 0x7e but the backslash: each string is its own bytes) and whose numbers are plain
 * integers: what JSON.parse and decodeView would make of it, without the object (at 100,000 rows, parsing them was a
 * third of `list` into a pipe and most of its collections). `at` gets each field's start and end (see VIEW_FIELD),
 * -1 for a null; false for any other view (then rawView parses it: an escape, another number, a damaged or forged
 * row). Hand-written: a JSON parser that reports where values lie without building them is not a library a CLI's
 * start can afford.
 */
export function plainViewFields(bytes: Buffer, from: number, to: number, at: Int32Array): boolean {
  let p = from;
  for (let k = 0; k < VIEW_KEYS.length; k++) {
    const key = VIEW_KEYS[k];
    for (let i = 0; i < key.length; i++) if (bytes[p + i] !== key[i]) return false;
    p += key.length;
    const kind = VIEW_KINDS[k];
    const slot = VIEW_SLOTS[k];
    if (kind === FINAL) return p === to && isStatus(bytes, at[VIEW_FIELD.status], at[VIEW_FIELD.status + 1]);
    if (bytes[p] === NULL_BYTE && kind !== STRING) {
      if (!startsAt(bytes, p, "null")) return false;
      if (slot >= 0) at[slot] = at[slot + 1] = -1;
      p += 4;
    } else if (kind === NUMBER_OR_NULL) {
      // A plain integer (JSON allows no leading zero): any other number is left to JSON.parse.
      const first = p;
      while (bytes[p] >= 0x30 && bytes[p] <= 0x39) p++;
      if (p === first || (bytes[first] === 0x30 && p > first + 1)) return false;
    } else {
      if (bytes[p] !== QUOTE) return false;
      const first = ++p;
      const end = bytes.indexOf(QUOTE, first);
      if (end === -1 || end >= to) return false;
      for (; p < end; p++) {
        const c = bytes[p];
        if (c < 0x20 || c > 0x7e || c === BACKSLASH) return false;
      }
      if (slot >= 0) {
        at[slot] = first;
        at[slot + 1] = end;
      }
      p++;
    }
  }
  return false;
}

/** Slots of plainViewFields' `at`: a field's start, its end one further. */
export const VIEW_FIELD = {
  taskId: 0,
  server: 2,
  tool: 4,
  status: 6,
  statusMessage: 8,
  createdAt: 10,
  gone: 12,
  size: 14,
} as const;
const STRING = 0;
const STRING_OR_NULL = 1;
const NUMBER_OR_NULL = 2;
const FINAL = 3;
const NULL_BYTE = 0x6e; // "n"
const F = VIEW_FIELD;
// A view's keys in the order summaryView (model.ts) sets them, what each value may be, and where its bytes are
// reported (-1: checked, not reported). The last "key" is the view's end: expired is false on every finished row.
const VIEW: ReadonlyArray<readonly [key: string, kind: number, slot: number]> = [
  ['{"taskId":', STRING, F.taskId],
  [',"server":', STRING, F.server],
  [',"tool":', STRING, F.tool],
  [',"generation":', STRING, -1],
  [',"status":', STRING, F.status],
  [',"statusMessage":', STRING_OR_NULL, F.statusMessage],
  [',"createdAt":', STRING, F.createdAt],
  [',"updatedAt":', STRING, -1],
  [',"ttlMs":', NUMBER_OR_NULL, -1],
  [',"pollIntervalMs":', NUMBER_OR_NULL, -1],
  [',"expired":false,"gone":', STRING_OR_NULL, F.gone],
  ["}", FINAL, -1],
];
const VIEW_KEYS = VIEW.map(([key]) => Buffer.from(key));
const VIEW_KINDS = VIEW.map(([, kind]) => kind);
const VIEW_SLOTS = VIEW.map(([, , slot]) => slot);
const STATUS_BYTES = TASK_STATUSES.map((status) => Buffer.from(status));

/** Whether bytes `from`..`to` are a task status (decodeView's check). */
function isStatus(bytes: Buffer, from: number, to: number): boolean {
  for (const status of STATUS_BYTES) if (sameBytes(status, 0, status.length, bytes, from, to)) return true;
  return false;
}
