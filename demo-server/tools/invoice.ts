// process_invoice: a task. Goods receipt, ERP validation, an approval form, a second question when the invoice
// does not match its PO or exceeds the approver's limit, reconciliation, a structured result.

import { CURRENCIES, count, journalEntryId, lookupPo, money, round2 } from "../erp.js";
import type { JsonObject, TaskProgram, TaskRecord } from "../task.js";
import { answerOf, badArgs, enumArg, numArg, strArg, textResult } from "./args.js";
import {
  INVOICE_OUTPUT_SCHEMA,
  approvalForm,
  exceptionForm,
  reasonsOf,
  type InvoiceData,
  type Outcome,
} from "./invoice-forms.js";
import { PO_NUMBER, poNumberArg } from "./purchase-order.js";
import type { ToolDef } from "./tool.js";

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

/** What an answer can lead to: the next question, reconciliation, or the end with an outcome. */
interface Steps {
  ops: Parameters<TaskProgram>[2];
  reconcile(): void;
  finishAs(outcome: Outcome, why: string, message: string): void;
}

/** The approver's answer: held (no decision), rejected, reconciled, or a second question on an exception. */
function approvalAnswered(d: InvoiceData, response: JsonObject | undefined, { ops, reconcile, finishAs }: Steps): void {
  const { action, content } = answerOf(response);
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
    typeof content.amount_limit === "number" && Number.isFinite(content.amount_limit) ? content.amount_limit : d.amount;
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
  if (reasons.length === 0) return reconcile();
  d.reasons = reasons;
  ops.ask(
    { exception: exceptionForm(d, reasons) },
    "exception",
    `waiting for a decision: ${d.invoice_id} ${reasons.map((r) => r.replace("_", " ")).join(", ")}`,
  );
}

/** The decision on an exception: post anyway, reject, or hold. */
function exceptionAnswered(d: InvoiceData, response: JsonObject | undefined, { reconcile, finishAs }: Steps): void {
  const { action, content } = answerOf(response);
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
      approvalAnswered(d, event.responses.approval, { ops, reconcile, finishAs });
    } else if (event.kind === "input" && task.phase === "exception") {
      exceptionAnswered(d, event.responses.exception, { ops, reconcile, finishAs });
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
