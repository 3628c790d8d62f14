// process_invoice: a task. Goods receipt, ERP validation, an approval form, a second question when the invoice
// does not match its PO or exceeds the approver's limit, reconciliation, a structured result.

import { CURRENCIES, count, journalEntryId, lookupPo, money, round2, signed, type PurchaseOrder } from "../erp.js";
import type { InputRequest, JsonObject, TaskProgram, TaskRecord } from "../task.js";
import { answerOf, badArgs, elicitForm, enumArg, numArg, strArg, textResult } from "./args.js";
import { PO_NUMBER, poNumberArg } from "./purchase-order.js";
import type { ToolDef } from "./tool.js";

const percent = (part: number, whole: number): string => `${whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10}%`;

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
            reasons: {
              type: "array",
              items: { type: "string", enum: ["amount_mismatch", "currency_mismatch", "over_limit"] },
            },
            decision: { type: "string", enum: ["post", "hold", "reject", "none"] },
            note: { type: "string" },
          },
          required: ["reasons", "decision", "note"],
          additionalProperties: false,
        },
      ],
    },
  },
  required: [
    "invoice_id",
    "po_number",
    "supplier",
    "status",
    "currency",
    "amount",
    "po_amount",
    "difference",
    "posted_amount",
    "journal_entry_id",
    "approved",
    "approver_comment",
    "exception",
  ],
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
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,39}$/.test(invoice_id))
    badArgs("invoice_id must be 1 to 40 letters, digits, '.', '_', '/' or '-', e.g. INV-2041");
  const po_number = poNumberArg(args);
  const amount = round2(numArg(args, "amount", undefined, 0.01, 10_000_000));
  const po = lookupPo(po_number);
  const currency = enumArg(args, "currency", CURRENCIES, po.currency);
  return { invoice_id, po_number, amount, currency, po } satisfies InvoiceData;
}

function approvalForm(d: InvoiceData): InputRequest {
  const received = d.po.lines.every((l) => l.received >= l.quantity)
    ? "goods received in full"
    : "goods partly received";
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
    parts.push(
      `${d.invoice_id} is ${money(d.amount, d.currency)} but ${d.po_number} is ${money(d.po.total, d.po.currency)} (${signed(diff)}, ${diff >= 0 ? "+" : "-"}${percent(Math.abs(diff), d.po.total)}).`,
    );
  }
  if (reasons.includes("currency_mismatch")) parts.push(`The invoice is in ${d.currency}, the PO in ${d.po.currency}.`);
  if (reasons.includes("over_limit"))
    parts.push(`It exceeds your approval limit of ${money(d.amount_limit ?? 0, d.currency)}.`);
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
    exception:
      d.reasons && d.reasons.length > 0
        ? { reasons: d.reasons, decision: d.decision ?? "none", note: d.note ?? "" }
        : null,
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
    const reconcile = () =>
      ops.sleep(pace(2000), "post", `reconciling ${d.invoice_id} with ${d.po_number} and its goods receipt`);
    const finishAs = (outcome: Outcome, why: string, message: string) => {
      d.outcome = outcome;
      d.why = why;
      ops.sleep(pace(600), "finish", message);
    };
    if (event.kind === "start") {
      const items = d.po.lines.reduce((n, l) => n + l.received, 0);
      ops.sleep(
        pace(2000),
        "validate",
        `recording goods received for ${d.po_number}: ${d.po.lines.length} line(s), ${count(items)} item(s)`,
      );
    } else if (event.kind === "wake" && task.phase === "validate") {
      ops.sleep(
        pace(2500),
        "approve",
        `validating ${d.invoice_id} against the ERP (simulated): ${d.po_number}, ${d.po.supplier}, ${money(d.po.total, d.po.currency)}`,
      );
    } else if (event.kind === "wake" && task.phase === "approve") {
      ops.ask(
        { approval: approvalForm(d) },
        "approval",
        `waiting for approval: ${d.invoice_id}, ${money(d.amount, d.currency)} to ${d.po.supplier}`,
      );
    } else if (event.kind === "input" && task.phase === "approval") {
      const { action, content } = answerOf(event.responses.approval);
      if (action !== "accept") {
        d.approved = false;
        finishAs(
          "held",
          `the approval request was ${action === "decline" ? "declined" : "cancelled"}`,
          `holding ${d.invoice_id}: no approval decision`,
        );
        return;
      }
      d.approved = content.approve === true;
      if (typeof content.comment === "string") d.comment = content.comment.slice(0, 200);
      const limit =
        typeof content.amount_limit === "number" && Number.isFinite(content.amount_limit)
          ? content.amount_limit
          : d.amount;
      d.amount_limit = Math.max(0, limit);
      if (!d.approved) {
        finishAs(
          "rejected",
          d.comment ? `approver: ${d.comment}` : "not approved",
          `recording the rejection of ${d.invoice_id}`,
        );
        return;
      }
      const reasons = reasonsOf(d);
      if (reasons.length === 0) {
        reconcile();
        return;
      }
      d.reasons = reasons;
      ops.ask(
        { exception: exceptionForm(d, reasons) },
        "exception",
        `waiting for a decision: ${d.invoice_id} ${reasons.map((r) => r.replace("_", " ")).join(", ")}`,
      );
    } else if (event.kind === "input" && task.phase === "exception") {
      const { action, content } = answerOf(event.responses.exception);
      const choice = action === "accept" && typeof content.action === "string" ? content.action : "none";
      d.decision = ["post", "hold", "reject"].includes(choice) ? choice : "none";
      if (typeof content.note === "string") d.note = content.note.slice(0, 200);
      if (d.decision === "post") reconcile();
      else if (d.decision === "reject")
        finishAs(
          "rejected",
          d.note ? `on review: ${d.note}` : "rejected on review",
          `recording the rejection of ${d.invoice_id}`,
        );
      else
        finishAs(
          "held",
          d.decision === "hold" ? (d.note ? `on review: ${d.note}` : "held on review") : "no decision on the exception",
          `holding ${d.invoice_id} for review`,
        );
    } else if (event.kind === "wake" && task.phase === "post") {
      d.outcome = "posted";
      ops.sleep(
        pace(1000),
        "finish",
        `posting journal entry ${journalEntryId(task.taskId, d.invoice_id)} to the ledger`,
      );
    } else if (event.kind === "wake" && task.phase === "finish") {
      ops.complete(invoiceResult(task, d));
    }
  };
}

export function processInvoiceTool(pace: (ms: number) => number): ToolDef {
  return {
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
        invoice_id: {
          type: "string",
          title: "Invoice number",
          description: "e.g. INV-2041",
          minLength: 1,
          maxLength: 40,
        },
        po_number: PO_NUMBER,
        amount: { type: "number", title: "Invoice amount", exclusiveMinimum: 0, maximum: 10_000_000 },
        currency: {
          type: "string",
          title: "Currency",
          enum: [...CURRENCIES],
          description: "Default: the PO's currency",
        },
      },
      required: ["invoice_id", "po_number", "amount"],
    },
    outputSchema: INVOICE_OUTPUT_SCHEMA,
    task: { support: "required", data: invoiceData },
    program: processInvoice(pace),
  };
}
