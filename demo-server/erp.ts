// The simulated ERP behind the demo's tools: a few well-known purchase orders, and a deterministic one for any
// other well-formed PO number, so that every PO a user types exists and always says the same thing.

import { createHash } from "node:crypto";

export const CURRENCIES = ["EUR", "USD", "GBP"] as const;
export type Currency = (typeof CURRENCIES)[number];

export interface PoLine {
  line: number;
  sku: string;
  description: string;
  quantity: number;
  unit_price: number;
  received: number;
}

export interface PurchaseOrder {
  po_number: string;
  supplier: string;
  buyer: string;
  currency: Currency;
  total: number;
  status: "open";
  ordered_on: string;
  lines: PoLine[];
}

/** What a PO number looks like: `PO-` and 3 to 8 digits. */
export const PO_PATTERN = "^PO-[0-9]{3,8}$";
const PO_REGEX = new RegExp(PO_PATTERN);

type LineSpec = [sku: string, description: string, quantity: number, unitPrice: number];

const KNOWN: Record<
  string,
  { supplier: string; buyer: string; currency: Currency; ordered_on: string; lines: LineSpec[] }
> = {
  "PO-1001": {
    supplier: "Acme Office Supplies",
    buyer: "Facilities",
    currency: "EUR",
    ordered_on: "2026-09-14",
    lines: [
      ["CH-ERGO-2", "Ergonomic office chair", 8, 125],
      ["DK-SIT-160", "Sit-stand desk 160 cm", 1, 250],
    ],
  },
  "PO-1002": {
    supplier: "Northwind Logistics",
    buyer: "Supply chain",
    currency: "USD",
    ordered_on: "2026-09-02",
    lines: [["FRT-EU-40", "Container freight Rotterdam-Newark (40 ft)", 12, 700]],
  },
  "PO-1003": {
    supplier: "Globex Components",
    buyer: "Manufacturing",
    currency: "GBP",
    ordered_on: "2026-08-28",
    lines: [
      ["GX-BRG-608", "Ball bearing 608-2RS (box of 100)", 25, 38.5],
      ["GX-SH-12", "Steel shaft 12 mm x 1 m", 60, 50.2],
    ],
  },
  "PO-1004": {
    supplier: "Initech Software",
    buyer: "IT",
    currency: "EUR",
    ordered_on: "2026-07-01",
    lines: [["INI-TPS-USR", "TPS Reports Cloud, annual user licence", 100, 120]],
  },
  "PO-1005": {
    supplier: "Umbrella Lab Supplies",
    buyer: "R&D",
    currency: "EUR",
    ordered_on: "2026-09-20",
    lines: [
      ["UL-PIP-1000", "Pipette tips 1000 µl (rack of 96)", 20, 14.9],
      ["UL-GLV-M", "Nitrile gloves, size M (box of 100)", 40, 8.62],
    ],
  },
};

const SUPPLIERS = [
  "Contoso Industrial",
  "Fabrikam Metals",
  "Tailspin Packaging",
  "Wingtip Electronics",
  "Litware Paper Co.",
  "Proseware Tools",
];
const BUYERS = ["Operations", "Facilities", "Manufacturing", "IT", "Marketing"];
const ITEMS: Array<[string, string]> = [
  ["PKG-BOX-L", "Shipping box, large (bundle of 50)"],
  ["EL-CBL-5", "Power cable 5 m"],
  ["MT-PLT-2", "Steel plate 2 mm"],
  ["PP-A4-500", "Copy paper A4 (ream of 500)"],
  ["TL-DRL-18", "Cordless drill 18 V"],
];

const round2 = (n: number): number => Math.round(n * 100) / 100;

export function isPoNumber(value: string): boolean {
  return PO_REGEX.test(value);
}

/** The PO, from the catalogue or generated from the number (a whole-hundred total in EUR). */
export function lookupPo(poNumber: string): PurchaseOrder {
  const known = KNOWN[poNumber];
  const toLines = (specs: LineSpec[]): PoLine[] =>
    specs.map(([sku, description, quantity, unit_price], i) => ({
      line: i + 1,
      sku,
      description,
      quantity,
      unit_price,
      received: quantity,
    }));
  if (known) {
    const lines = toLines(known.lines);
    const total = round2(lines.reduce((sum, l) => sum + l.quantity * l.unit_price, 0));
    return {
      po_number: poNumber,
      supplier: known.supplier,
      buyer: known.buyer,
      currency: known.currency,
      total,
      status: "open",
      ordered_on: known.ordered_on,
      lines,
    };
  }
  const hash = createHash("sha256").update(poNumber).digest();
  const [itemSku, itemName] = ITEMS[hash[2] % ITEMS.length];
  const quantity = [2, 4, 5, 10, 20, 25][hash[3] % 6];
  const total = (10 + (hash.readUInt16BE(4) % 90)) * 100;
  const lines: PoLine[] = [
    {
      line: 1,
      sku: itemSku,
      description: itemName,
      quantity,
      unit_price: round2(total / quantity),
      received: quantity,
    },
  ];
  const day = 1 + (hash[6] % 28);
  return {
    po_number: poNumber,
    supplier: SUPPLIERS[hash[0] % SUPPLIERS.length],
    buyer: BUYERS[hash[1] % BUYERS.length],
    currency: "EUR",
    total,
    status: "open",
    ordered_on: `2026-09-${String(day).padStart(2, "0")}`,
    lines,
  };
}

const MONEY = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const COUNT = new Intl.NumberFormat("en-US");

export const money = (amount: number, currency?: string): string =>
  `${MONEY.format(amount)}${currency ? ` ${currency}` : ""}`;
export const count = (n: number): string => COUNT.format(n);
export const signed = (amount: number, currency?: string): string =>
  `${amount >= 0 ? "+" : "-"}${money(Math.abs(amount), currency)}`;
export { round2 };

/** A stable journal entry number for a task (the same after a restart). */
export function journalEntryId(taskId: string, invoiceId: string): string {
  const hash = createHash("sha256").update(`${taskId}/${invoiceId}`).digest();
  return `JE-2026-${String(hash.readUInt32BE(0) % 1_000_000).padStart(6, "0")}`;
}
