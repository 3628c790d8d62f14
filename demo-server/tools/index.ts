// The demo's tools: a purchase-order-to-invoice workflow on a simulated ERP. What a tool is: tool.ts.
//
//   lookup_po       immediate (never a task): the PO as the ERP has it
//   process_invoice task: goods receipt, ERP validation, an approval form, a second question when the invoice
//                   does not match its PO or exceeds the approver's limit, reconciliation, a structured result
//   sync_ledger     task that fails after a few retries: "ERP connection refused (simulated)"
//   export_ledger   long task (~60 s) reporting progress; made to be cancelled

import { processInvoiceTool } from "./invoice.js";
import { exportLedgerTool, syncLedgerTool } from "./ledger.js";
import { lookupPoTool } from "./purchase-order.js";
import type { ToolDef } from "./tool.js";

/** The demo's tools. `speed` divides every delay (2 = twice as fast). */
export function demoTools(speed: number): ToolDef[] {
  const pace = (ms: number) => Math.max(1, Math.round(ms / speed));
  return [lookupPoTool(), processInvoiceTool(pace), syncLedgerTool(pace), exportLedgerTool(pace)];
}
