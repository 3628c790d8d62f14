// The demo's tools: a purchase-order-to-invoice workflow on a simulated ERP. Each tool is described once, for
// both generations: v1.ts adds `execution.taskSupport` from `task.support`, v2.ts lets the server decide per call.
//
//   lookup_po       immediate (never a task): the PO as the ERP has it
//   process_invoice task: goods receipt, ERP validation, an approval form, a second question when the invoice
//                   does not match its PO or exceeds the approver's limit, reconciliation, a structured result
//   sync_ledger     task that fails after a few retries: "ERP connection refused (simulated)"
//   export_ledger   long task (~60 s) reporting progress; made to be cancelled

import { createHash } from "node:crypto";
import { ProtocolError } from "@modelcontextprotocol/server";
import type { ServerContext } from "@modelcontextprotocol/server";
import { CURRENCIES, PO_PATTERN, count, isPoNumber, journalEntryId, lookupPo, money, round2, signed, type PurchaseOrder } from "./erp.js";
import { newTaskRecord, type InputRequest, type JsonObject, type TaskOps, type TaskProgram, type TaskRecord, type TaskRuntime } from "./runtime.js";

const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/** What a V2-only tool with its own flow gets (request-level input before a task, as the tests' conformance fixtures do). */
export interface V2CallEnv {
  runtime: TaskRuntime;
  mintState(state: JsonObject): Promise<string>;
  verifyState(state: string, ctx: ServerContext): Promise<JsonObject>;
  /** The CreateTaskResult that hands a new task to the client. */
  taskResult(task: TaskRecord): JsonObject;
}

/** Per-call task settings a V2 tool may take from its arguments (the defaults are the server's). */
export interface TaskOverrides {
  ttlMs?: number;
  pollIntervalMs?: number;
}

export interface ToolDef {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  /** Answered at once; never a task (V1 `taskSupport: forbidden`). */
  immediate?: (args: JsonObject) => JsonObject;
  /**
   * A task tool. `required`: only as a task (V1 `taskSupport: required`; V2 refuses a client without the tasks
   * extension). `optional`: V1 `taskSupport: optional`; V2 runs it inline for a client without the extension.
   * `data` validates the arguments and returns the program's initial data; `overrides` (V2 only, optional) the
   * task's own ttl and poll interval.
   */
  task?: { support: "required" | "optional"; data: (args: JsonObject) => JsonObject; overrides?: (args: JsonObject) => TaskOverrides };
  program?: TaskProgram;
  /** V2 only: the tool's own flow (request-level input first). */
  v2Call?: (args: JsonObject, ctx: ServerContext, env: V2CallEnv) => Promise<JsonObject>;
}

// ---- helpers --------------------------------------------------------------------------------------------

export const textResult = (text: string, structuredContent?: JsonObject): JsonObject => ({
  content: [{ type: "text", text }],
  ...(structuredContent !== undefined && { structuredContent }),
});

export function badArgs(message: string): never {
  throw new ProtocolError(INVALID_PARAMS, `Invalid arguments: ${message}`);
}

export function strArg(args: JsonObject, key: string, fallback?: string): string {
  const v = args[key];
  if (v === undefined || v === null) {
    if (fallback === undefined) badArgs(`${key} is required`);
    return fallback;
  }
  if (typeof v !== "string") badArgs(`${key} must be a string`);
  return v;
}

export function numArg(args: JsonObject, key: string, fallback: number | undefined, min: number, max: number): number {
  const v = args[key];
  if (v === undefined || v === null) {
    if (fallback === undefined) badArgs(`${key} is required`);
    return fallback;
  }
  // A number given as a numeric string (a form or a command line) is accepted.
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n)) badArgs(`${key} must be a number`);
  if (n < min || n > max) badArgs(`${key} must be between ${min} and ${max}`);
  return n;
}

function enumArg<T extends string>(args: JsonObject, key: string, values: readonly T[], fallback: T | undefined): T {
  const v = args[key] ?? fallback;
  if (v === undefined) badArgs(`${key} is required`);
  if (typeof v !== "string" || !values.includes(v as T)) badArgs(`${key} must be one of ${values.join(", ")}`);
  return v as T;
}

export function elicitForm(message: string, properties: JsonObject, required: string[]): InputRequest {
  return { method: "elicitation/create", params: { mode: "form", message, requestedSchema: { type: "object", properties, required } } };
}

/** The accepted form content of an answer, or the action when it was not accepted. */
export function answerOf(response: JsonObject | undefined): { action: string; content: JsonObject } {
  const action = typeof response?.action === "string" ? response.action : "cancel";
  const content = response?.content !== null && typeof response?.content === "object" && !Array.isArray(response?.content) ? (response.content as JsonObject) : {};
  return { action, content };
}

const percent = (part: number, whole: number): string => `${whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10}%`;

// ---- lookup_po ---------------------------------------------------------------------------------------------

const PO_NUMBER = { type: "string", pattern: PO_PATTERN, title: "PO number", description: "Purchase order number, e.g. PO-1001 (PO-1001 to PO-1005 are in the demo ERP; any other PO-nnnn is generated)" };

const PO_OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    po_number: { type: "string" },
    supplier: { type: "string" },
    buyer: { type: "string" },
    currency: { type: "string", enum: [...CURRENCIES] },
    total: { type: "number" },
    status: { type: "string", enum: ["open"] },
    ordered_on: { type: "string" },
    lines: {
      type: "array",
      items: {
        type: "object",
        properties: {
          line: { type: "integer" },
          sku: { type: "string" },
          description: { type: "string" },
          quantity: { type: "number" },
          unit_price: { type: "number" },
          received: { type: "number" },
        },
        required: ["line", "sku", "description", "quantity", "unit_price", "received"],
      },
    },
  },
  required: ["po_number", "supplier", "buyer", "currency", "total", "status", "ordered_on", "lines"],
};

function poNumberArg(args: JsonObject): string {
  const po = strArg(args, "po_number").trim().toUpperCase();
  if (!isPoNumber(po)) badArgs("po_number must look like PO-1001 (PO- and 3 to 8 digits)");
  return po;
}

function poSummary(po: PurchaseOrder): string {
  const lines = po.lines.map((l) => `  ${l.line}. ${l.description} (${l.sku}): ${count(l.quantity)} x ${money(l.unit_price)} = ${money(l.quantity * l.unit_price)}, received ${count(l.received)}`);
  return [`${po.po_number} from ${po.supplier} (buyer: ${po.buyer}), ordered ${po.ordered_on}: ${money(po.total, po.currency)}, ${po.status}`, ...lines].join("\n");
}

// ---- process_invoice ---------------------------------------------------------------------------------------

type Reason = "amount_mismatch" | "currency_mismatch" | "over_limit";
type Outcome = "posted" | "held" | "rejected";

const INVOICE_OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    invoice_id: { type: "string" },
    po_number: { type: "string" },
    supplier: { type: "string" },
    status: { type: "string", enum: ["posted", "held", "rejected"] },
    currency: { type: "string", enum: [...CURRENCIES] },
    amount: { type: "number", description: "invoice amount" },
    po_amount: { type: "number", description: "PO total in the ERP" },
    difference: { type: "number", description: "amount - po_amount" },
    posted_amount: { type: "number", minimum: 0 },
    journal_entry_id: { type: ["string", "null"] },
    approved: { type: "boolean" },
    approver_comment: { type: "string" },
    exception: {
      description: "the second question, when the invoice did not match its PO or exceeded the approver's limit",
      anyOf: [
        { type: "null" },
        {
          type: "object",
          properties: {
            reasons: { type: "array", items: { type: "string", enum: ["amount_mismatch", "currency_mismatch", "over_limit"] } },
            decision: { type: "string", enum: ["post", "hold", "reject", "none"] },
            note: { type: "string" },
          },
          required: ["reasons", "decision", "note"],
          additionalProperties: false,
        },
      ],
    },
  },
  required: ["invoice_id", "po_number", "supplier", "status", "currency", "amount", "po_amount", "difference", "posted_amount", "journal_entry_id", "approved", "approver_comment", "exception"],
  additionalProperties: false,
};

interface InvoiceData extends JsonObject {
  invoice_id: string;
  po_number: string;
  amount: number;
  currency: string;
  po: PurchaseOrder;
  approved?: boolean;
  comment?: string;
  amount_limit?: number;
  reasons?: Reason[];
  decision?: string;
  note?: string;
  outcome?: Outcome;
  why?: string;
}

function invoiceData(args: JsonObject): JsonObject {
  const invoice_id = strArg(args, "invoice_id").trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,39}$/.test(invoice_id)) badArgs("invoice_id must be 1 to 40 letters, digits, '.', '_', '/' or '-', e.g. INV-2041");
  const po_number = poNumberArg(args);
  const amount = round2(numArg(args, "amount", undefined, 0.01, 10_000_000));
  const po = lookupPo(po_number);
  const currency = enumArg(args, "currency", CURRENCIES, po.currency);
  return { invoice_id, po_number, amount, currency, po } satisfies InvoiceData;
}

function approvalForm(d: InvoiceData): InputRequest {
  const received = d.po.lines.every((l) => l.received >= l.quantity) ? "goods received in full" : "goods partly received";
  return elicitForm(
    `Approve invoice ${d.invoice_id} from ${d.po.supplier} for ${money(d.amount, d.currency)}? (${d.po_number}, ${received})`,
    {
      approve: { type: "boolean", title: "Approve", description: "Approve this invoice for payment" },
      comment: { type: "string", title: "Comment", description: "For the audit trail (optional)", maxLength: 200 },
      amount_limit: {
        type: "number",
        title: "Your approval limit",
        description: `The most you may approve (${d.currency}); below the invoice amount, a second question follows`,
        minimum: 0,
        default: d.amount,
      },
    },
    ["approve"],
  );
}

function reasonsOf(d: InvoiceData): Reason[] {
  const reasons: Reason[] = [];
  if (Math.abs(d.amount - d.po.total) >= 0.005) reasons.push("amount_mismatch");
  if (d.currency !== d.po.currency) reasons.push("currency_mismatch");
  if (d.amount_limit !== undefined && d.amount_limit < d.amount) reasons.push("over_limit");
  return reasons;
}

function exceptionForm(d: InvoiceData, reasons: Reason[]): InputRequest {
  const parts: string[] = [];
  if (reasons.includes("amount_mismatch")) {
    const diff = round2(d.amount - d.po.total);
    parts.push(`${d.invoice_id} is ${money(d.amount, d.currency)} but ${d.po_number} is ${money(d.po.total, d.po.currency)} (${signed(diff)}, ${diff >= 0 ? "+" : "-"}${percent(Math.abs(diff), d.po.total)}).`);
  }
  if (reasons.includes("currency_mismatch")) parts.push(`The invoice is in ${d.currency}, the PO in ${d.po.currency}.`);
  if (reasons.includes("over_limit")) parts.push(`It exceeds your approval limit of ${money(d.amount_limit ?? 0, d.currency)}.`);
  return elicitForm(
    `${parts.join(" ")} Post it anyway, hold it for review, or reject it?`,
    {
      action: {
        type: "string",
        title: "Decision",
        oneOf: [
          { const: "post", title: "Post anyway" },
          { const: "hold", title: "Hold for review" },
          { const: "reject", title: "Reject the invoice" },
        ],
      },
      note: { type: "string", title: "Note", description: "Why (optional)", maxLength: 200 },
    },
    ["action"],
  );
}

function invoiceResult(task: TaskRecord, d: InvoiceData): JsonObject {
  const outcome = d.outcome ?? "held";
  const posted = outcome === "posted";
  const journal = posted ? journalEntryId(task.taskId, d.invoice_id) : null;
  const structured = {
    invoice_id: d.invoice_id,
    po_number: d.po_number,
    supplier: d.po.supplier,
    status: outcome,
    currency: d.currency,
    amount: d.amount,
    po_amount: d.po.total,
    difference: round2(d.amount - d.po.total),
    posted_amount: posted ? d.amount : 0,
    journal_entry_id: journal,
    approved: d.approved === true,
    approver_comment: d.comment ?? "",
    exception: d.reasons && d.reasons.length > 0 ? { reasons: d.reasons, decision: d.decision ?? "none", note: d.note ?? "" } : null,
  };
  const against = `${d.po_number} (${d.po.supplier})`;
  const text =
    outcome === "posted"
      ? `${d.invoice_id} posted: ${money(d.amount, d.currency)} against ${against}, journal entry ${journal}.`
      : outcome === "held"
        ? `${d.invoice_id} held for review: ${money(d.amount, d.currency)} against ${against} was not posted (${d.why ?? "on hold"}).`
        : `${d.invoice_id} rejected: ${money(d.amount, d.currency)} against ${against} will not be paid${d.why ? ` (${d.why})` : ""}.`;
  return textResult(text, structured);
}

function processInvoice(pace: (ms: number) => number): TaskProgram {
  return (task, event, ops) => {
    const d = task.data as InvoiceData;
    const reconcile = () => ops.sleep(pace(2000), "post", `reconciling ${d.invoice_id} with ${d.po_number} and its goods receipt`);
    const finishAs = (outcome: Outcome, why: string, message: string) => {
      d.outcome = outcome;
      d.why = why;
      ops.sleep(pace(600), "finish", message);
    };
    if (event.kind === "start") {
      const items = d.po.lines.reduce((n, l) => n + l.received, 0);
      ops.sleep(pace(2000), "validate", `recording goods received for ${d.po_number}: ${d.po.lines.length} line(s), ${count(items)} item(s)`);
    } else if (event.kind === "wake" && task.phase === "validate") {
      ops.sleep(pace(2500), "approve", `validating ${d.invoice_id} against the ERP (simulated): ${d.po_number}, ${d.po.supplier}, ${money(d.po.total, d.po.currency)}`);
    } else if (event.kind === "wake" && task.phase === "approve") {
      ops.ask({ approval: approvalForm(d) }, "approval", `waiting for approval: ${d.invoice_id}, ${money(d.amount, d.currency)} to ${d.po.supplier}`);
    } else if (event.kind === "input" && task.phase === "approval") {
      const { action, content } = answerOf(event.responses.approval);
      if (action !== "accept") {
        d.approved = false;
        finishAs("held", `the approval request was ${action === "decline" ? "declined" : "cancelled"}`, `holding ${d.invoice_id}: no approval decision`);
        return;
      }
      d.approved = content.approve === true;
      if (typeof content.comment === "string") d.comment = content.comment.slice(0, 200);
      const limit = typeof content.amount_limit === "number" && Number.isFinite(content.amount_limit) ? content.amount_limit : d.amount;
      d.amount_limit = Math.max(0, limit);
      if (!d.approved) {
        finishAs("rejected", d.comment ? `approver: ${d.comment}` : "not approved", `recording the rejection of ${d.invoice_id}`);
        return;
      }
      const reasons = reasonsOf(d);
      if (reasons.length === 0) {
        reconcile();
        return;
      }
      d.reasons = reasons;
      ops.ask({ exception: exceptionForm(d, reasons) }, "exception", `waiting for a decision: ${d.invoice_id} ${reasons.map((r) => r.replace("_", " ")).join(", ")}`);
    } else if (event.kind === "input" && task.phase === "exception") {
      const { action, content } = answerOf(event.responses.exception);
      const choice = action === "accept" && typeof content.action === "string" ? content.action : "none";
      d.decision = ["post", "hold", "reject"].includes(choice) ? choice : "none";
      if (typeof content.note === "string") d.note = content.note.slice(0, 200);
      if (d.decision === "post") reconcile();
      else if (d.decision === "reject") finishAs("rejected", d.note ? `on review: ${d.note}` : "rejected on review", `recording the rejection of ${d.invoice_id}`);
      else finishAs("held", d.decision === "hold" ? (d.note ? `on review: ${d.note}` : "held on review") : "no decision on the exception", `holding ${d.invoice_id} for review`);
    } else if (event.kind === "wake" && task.phase === "post") {
      d.outcome = "posted";
      ops.sleep(pace(1000), "finish", `posting journal entry ${journalEntryId(task.taskId, d.invoice_id)} to the ledger`);
    } else if (event.kind === "wake" && task.phase === "finish") {
      ops.complete(invoiceResult(task, d));
    }
  };
}

// ---- sync_ledger -------------------------------------------------------------------------------------------

const LEDGERS = ["payables", "receivables", "general"] as const;
const ERP_HOST = "erp.demo.invalid";

function syncLedger(pace: (ms: number) => number): TaskProgram {
  return (task, event, ops) => {
    const ledger = String(task.data.ledger);
    const attempt = Number(task.data.attempt ?? 0);
    if (event.kind === "start") {
      task.data.attempt = 1;
      ops.sleep(pace(1500), "retry", `connecting to the ERP at ${ERP_HOST}:443 (simulated), attempt 1 of 3`);
    } else if (event.kind === "wake" && task.phase === "retry" && attempt < 3) {
      task.data.attempt = attempt + 1;
      ops.sleep(pace(2000), "retry", `connection refused; retrying ${ERP_HOST}:443, attempt ${attempt + 1} of 3`);
    } else if (event.kind === "wake" && task.phase === "retry") {
      ops.fail({
        code: INTERNAL_ERROR,
        message: `ERP connection refused (simulated): ${ERP_HOST}:443 refused 3 attempts; the ${ledger} ledger was not synchronised`,
        data: { host: ERP_HOST, port: 443, ledger, attempts: 3, retryable: true },
      });
    }
  };
}

// ---- export_ledger -----------------------------------------------------------------------------------------

const ROWS_PER_SECOND = 800;

const EXPORT_OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    file: { type: "string" },
    format: { type: "string", enum: ["csv", "jsonl"] },
    rows: { type: "integer", minimum: 0 },
    bytes: { type: "integer", minimum: 0 },
    sha256: { type: "string" },
  },
  required: ["file", "format", "rows", "bytes", "sha256"],
  additionalProperties: false,
};

function exportLedger(pace: (ms: number) => number): TaskProgram {
  return (task, event, ops) => {
    const rows = Number(task.data.rows);
    const durationMs = Number(task.data.durationMs);
    const tick = Math.max(50, Math.min(pace(1000), durationMs));
    const progress = (done: number) => `exported ${count(done)}/${count(rows)} rows (${Math.floor((done / rows) * 100)}%)`;
    if (event.kind === "start") {
      task.data.startedAt = Date.now();
      ops.sleep(tick, "tick", progress(0));
    } else if (event.kind === "wake" && task.phase === "tick") {
      const elapsed = Date.now() - Number(task.data.startedAt);
      if (elapsed >= durationMs) {
        const format = String(task.data.format);
        const stamp = new Date(Number(task.data.startedAt)).toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
        const file = `ledger-export-${stamp}.${format}`;
        const bytes = rows * (format === "csv" ? 118 : 196);
        const sha256 = createHash("sha256").update(`${task.taskId}/${file}/${rows}`).digest("hex");
        ops.complete(textResult(`exported ${count(rows)} rows to ${file} (${(bytes / 1_000_000).toFixed(1)} MB)`, { file, format, rows, bytes, sha256 }));
        return;
      }
      const done = Math.min(rows, Math.floor((rows * elapsed) / durationMs / 100) * 100);
      ops.sleep(Math.min(tick, durationMs - elapsed), "tick", progress(done));
    }
  };
}

// ---- the catalogue -----------------------------------------------------------------------------------------

export interface Catalogue {
  tools: ToolDef[];
  programs: Record<string, TaskProgram>;
}

/** The demo's tools. `speed` divides every delay (2 = twice as fast). */
export function demoTools(speed: number): ToolDef[] {
  const pace = (ms: number) => Math.max(1, Math.round(ms / speed));
  return [
    {
      name: "lookup_po",
      title: "Look up a purchase order",
      description: "Immediate (never a task): the purchase order as the demo ERP has it (supplier, currency, total, lines and goods received). Run it before process_invoice to see what the invoice will be checked against.",
      inputSchema: { type: "object", properties: { po_number: PO_NUMBER }, required: ["po_number"] },
      outputSchema: PO_OUTPUT_SCHEMA,
      immediate: (args) => {
        const po = lookupPo(poNumberArg(args));
        return textResult(poSummary(po), po as unknown as JsonObject);
      },
    },
    {
      name: "process_invoice",
      title: "Process a supplier invoice",
      description:
        "Task (required): records the goods received, validates the invoice against its PO in the demo ERP, asks for approval (approve, comment, your approval limit), " +
        "asks a second question when the amount or currency differs from the PO or exceeds your limit (post anyway, hold, reject), reconciles and posts it. " +
        "Ends with structuredContent {invoice_id, status: posted|held|rejected, posted_amount, journal_entry_id, ...}. About 8 s plus the time to answer. " +
        "PO-1001 is 1,250.00 EUR, PO-1002 8,400.00 USD, PO-1003 3,974.50 GBP, PO-1004 12,000.00 EUR, PO-1005 642.80 EUR.",
      inputSchema: {
        type: "object",
        properties: {
          invoice_id: { type: "string", title: "Invoice number", description: "e.g. INV-2041", minLength: 1, maxLength: 40 },
          po_number: PO_NUMBER,
          amount: { type: "number", title: "Invoice amount", exclusiveMinimum: 0, maximum: 10_000_000 },
          currency: { type: "string", title: "Currency", enum: [...CURRENCIES], description: "Default: the PO's currency" },
        },
        required: ["invoice_id", "po_number", "amount"],
      },
      outputSchema: INVOICE_OUTPUT_SCHEMA,
      task: { support: "required", data: invoiceData },
      program: processInvoice(pace),
    },
    {
      name: "sync_ledger",
      title: "Synchronise a ledger with the ERP",
      description: "Task (required) that fails: it retries the ERP connection three times (~5 s) and ends failed with a JSON-RPC error, 'ERP connection refused (simulated)'.",
      inputSchema: { type: "object", properties: { ledger: { type: "string", title: "Ledger", enum: [...LEDGERS], default: "payables" } } },
      task: { support: "required", data: (args) => ({ ledger: enumArg(args, "ledger", LEDGERS, "payables") }) },
      program: syncLedger(pace),
    },
    {
      name: "export_ledger",
      title: "Export the ledger",
      description: `Long task (required), about 60 s for the default 50,000 rows (${ROWS_PER_SECOND} rows/s); its status message shows the progress. Cancel it with tasks/cancel.`,
      inputSchema: {
        type: "object",
        properties: {
          rows: { type: "integer", title: "Rows", minimum: 100, maximum: 2_000_000, default: 50_000 },
          format: { type: "string", title: "Format", enum: ["csv", "jsonl"], default: "csv" },
        },
      },
      outputSchema: EXPORT_OUTPUT_SCHEMA,
      task: {
        support: "required",
        data: (args) => {
          const rows = Math.round(numArg(args, "rows", 50_000, 100, 2_000_000));
          return { rows, format: enumArg(args, "format", ["csv", "jsonl"] as const, "csv"), durationMs: pace((rows / ROWS_PER_SECOND) * 1000) };
        },
      },
      program: exportLedger(pace),
    },
  ];
}

export function catalogue(tools: ToolDef[]): Catalogue {
  const programs: Record<string, TaskProgram> = {};
  for (const tool of tools) if (tool.program) programs[tool.name] = tool.program;
  return { tools, programs };
}

/** Runs a task program to its end in-process, for a V2 client that did not declare the tasks extension. */
export function runInline(program: TaskProgram, tool: string, data: JsonObject, signal: AbortSignal, onAsk: () => Error): Promise<JsonObject> {
  return new Promise<JsonObject>((resolve, reject) => {
    const task = newTaskRecord("inline", tool, data, { ttlMs: 0, pollIntervalMs: 0 });
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const settle = (fn: () => void) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = () => settle(() => reject(new ProtocolError(INTERNAL_ERROR, "request cancelled")));
    signal.addEventListener("abort", onAbort, { once: true });
    const ops: TaskOps = {
      sleep: (ms, phase) => {
        task.phase = phase;
        timer = setTimeout(() => step({ kind: "wake" }), ms);
      },
      ask: () => settle(() => reject(onAsk())),
      note: () => {},
      complete: (result) => settle(() => resolve(result)),
      fail: (error) => settle(() => reject(new ProtocolError(error.code, error.message, error.data))),
    };
    const step = (event: Parameters<TaskProgram>[1]) => {
      try {
        program(task, event, ops);
      } catch (error) {
        settle(() => reject(error));
      }
    };
    step({ kind: "start" });
  });
}
