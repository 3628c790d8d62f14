// sync_ledger: a task that fails after a few retries ("ERP connection refused (simulated)"); export_ledger: a long
// task (~60 s) reporting progress, made to be cancelled.

import { createHash } from "node:crypto";
import { count } from "../erp.js";
import type { TaskProgram } from "../task.js";
import { enumArg, numArg, textResult } from "./args.js";
import type { ToolDef } from "./tool.js";

const INTERNAL_ERROR = -32603;

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
    const progress = (done: number) =>
      `exported ${count(done)}/${count(rows)} rows (${Math.floor((done / rows) * 100)}%)`;
    if (event.kind === "start") {
      task.data.startedAt = Date.now();
      ops.sleep(tick, "tick", progress(0));
    } else if (event.kind === "wake" && task.phase === "tick") {
      const elapsed = Date.now() - Number(task.data.startedAt);
      if (elapsed >= durationMs) {
        const format = String(task.data.format);
        const stamp = new Date(Number(task.data.startedAt))
          .toISOString()
          .replace(/[-:]/g, "")
          .replace(/\..*$/, "")
          .replace("T", "-");
        const file = `ledger-export-${stamp}.${format}`;
        const bytes = rows * (format === "csv" ? 118 : 196);
        const sha256 = createHash("sha256").update(`${task.taskId}/${file}/${rows}`).digest("hex");
        ops.complete(
          textResult(`exported ${count(rows)} rows to ${file} (${(bytes / 1_000_000).toFixed(1)} MB)`, {
            file,
            format,
            rows,
            bytes,
            sha256,
          }),
        );
        return;
      }
      const done = Math.min(rows, Math.floor((rows * elapsed) / durationMs / 100) * 100);
      ops.sleep(Math.min(tick, durationMs - elapsed), "tick", progress(done));
    }
  };
}

export function syncLedgerTool(pace: (ms: number) => number): ToolDef {
  return {
    name: "sync_ledger",
    title: "Synchronise a ledger with the ERP",
    description:
      "Task (required) that fails: it retries the ERP connection three times (~5 s) and ends failed with a JSON-RPC error, 'ERP connection refused (simulated)'.",
    inputSchema: {
      type: "object",
      properties: { ledger: { type: "string", title: "Ledger", enum: [...LEDGERS], default: "payables" } },
    },
    task: { support: "required", data: (args) => ({ ledger: enumArg(args, "ledger", LEDGERS, "payables") }) },
    program: syncLedger(pace),
  };
}

export function exportLedgerTool(pace: (ms: number) => number): ToolDef {
  return {
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
        return {
          rows,
          format: enumArg(args, "format", ["csv", "jsonl"] as const, "csv"),
          durationMs: pace((rows / ROWS_PER_SECOND) * 1000),
        };
      },
    },
    program: exportLedger(pace),
  };
}
