// JSON text searched as bytes (the index's log, read whole): JSON's structure is ASCII, and no byte of a multi-byte
// UTF-8 character is, so a byte's search finds punctuation whatever the log holds.
export const NEWLINE = 0x0a;
export const QUOTE = 0x22;
export const COMMA = 0x2c;
export const BACKSLASH = 0x5c;
export const BRACE = 0x7b;

/** Whether the bytes at `at` are the ASCII text `ascii`. */
export function startsAt(bytes: Buffer, at: number, ascii: string): boolean {
  for (let i = 0; i < ascii.length; i++) if (bytes[at + i] !== ascii.charCodeAt(i)) return false;
  return true;
}

/** Whether `byte` is among bytes `from`..`end`. */
export function holds(bytes: Buffer, byte: number, from: number, end: number): boolean {
  const at = bytes.indexOf(byte, from);
  return at !== -1 && at < end;
}

export function sameBytes(a: Buffer, aFrom: number, aTo: number, b: Buffer, bFrom: number, bTo: number): boolean {
  if (aTo - aFrom !== bTo - bFrom) return false;
  for (let i = 0; i < aTo - aFrom; i++) if (a[aFrom + i] !== b[bFrom + i]) return false;
  return true;
}
