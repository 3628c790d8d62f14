// lookup_po: immediate (never a task), the purchase order as the demo ERP has it.

import { CURRENCIES, PO_PATTERN, count, isPoNumber, lookupPo, money, type PurchaseOrder } from "../erp.js";
import type { JsonObject } from "../task.js";
import { badArgs, strArg, textResult } from "./args.js";
import type { ToolDef } from "./tool.js";

/** The po_number argument, as lookup_po and process_invoice declare it. */
export const PO_NUMBER = {
  type: "string",
  pattern: PO_PATTERN,
  title: "PO number",
  description:
    "Purchase order number, e.g. PO-1001 (PO-1001 to PO-1005 are in the demo ERP; any other PO-nnnn is generated)",
};

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

export function poNumberArg(args: JsonObject): string {
  const po = strArg(args, "po_number").trim().toUpperCase();
  if (!isPoNumber(po)) badArgs("po_number must look like PO-1001 (PO- and 3 to 8 digits)");
  return po;
}

function poSummary(po: PurchaseOrder): string {
  const lines = po.lines.map(
    (l) =>
      `  ${l.line}. ${l.description} (${l.sku}): ${count(l.quantity)} x ${money(l.unit_price)} = ${money(l.quantity * l.unit_price)}, received ${count(l.received)}`,
  );
  return [
    `${po.po_number} from ${po.supplier} (buyer: ${po.buyer}), ordered ${po.ordered_on}: ${money(po.total, po.currency)}, ${po.status}`,
    ...lines,
  ].join("\n");
}

export function lookupPoTool(): ToolDef {
  return {
    name: "lookup_po",
    title: "Look up a purchase order",
    description:
      "Immediate (never a task): the purchase order as the demo ERP has it (supplier, currency, total, lines and goods received). Run it before process_invoice to see what the invoice will be checked against.",
    inputSchema: { type: "object", properties: { po_number: PO_NUMBER }, required: ["po_number"] },
    outputSchema: PO_OUTPUT_SCHEMA,
    immediate: (args) => {
      const po = lookupPo(poNumberArg(args));
      return textResult(poSummary(po), po as unknown as JsonObject);
    },
  };
}
