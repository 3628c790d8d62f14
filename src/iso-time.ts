// A millisecond's ISO 8601 text, made once per millisecond: the trace stamps every message (a stream's chunk brings
// many in one ms) and a dashboard's 1,000 followed tasks record about 1,000 snapshots a second; a Date and its text
// each were garbage at once.
let last = { ms: Number.NaN, iso: "" };

export function isoTime(ms: number): string {
  if (ms !== last.ms) last = { ms, iso: new Date(ms).toISOString() };
  return last.iso;
}
