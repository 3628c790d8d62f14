// process_invoice's shapes: the data a task keeps, the forms it asks (approval, then the exception when the invoice
// does not match its PO or exceeds the approver's limit) and the output schema of its result.
import { CURRENCIES, money, round2, signed, type PurchaseOrder } from "../erp.js";
import type { InputRequest, JsonObject } from "../task.js";
import { elicitForm } from "./args.js";

const percent = (part: number, whole: number): string => `${whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10}%`;

export type Reason = "amount_mismatch" | "currency_mismatch" | "over_limit";
export type Outcome = "posted" | "held" | "rejected";

export const INVOICE_OUTPUT_SCHEMA = {
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

export interface InvoiceData extends JsonObject {
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

export function approvalForm(d: InvoiceData): InputRequest {
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

export function reasonsOf(d: InvoiceData): Reason[] {
  const reasons: Reason[] = [];
  if (Math.abs(d.amount - d.po.total) >= 0.005) reasons.push("amount_mismatch");
  if (d.currency !== d.po.currency) reasons.push("currency_mismatch");
  if (d.amount_limit !== undefined && d.amount_limit < d.amount) reasons.push("over_limit");
  return reasons;
}

export function exceptionForm(d: InvoiceData, reasons: Reason[]): InputRequest {
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
