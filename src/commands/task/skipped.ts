// The handle files that `list` and `prune` skipped (unreadable, or not ours), said in one line.
import { sanitizeLine } from "../../sanitize.js";

/** The handle files a listing skipped, reported in one line that names them (the first few) and says why. */
export class Skipped {
  private readonly files: Array<{ file: string; reason: string }> = [];
  readonly add = (file: string, reason: string): void => void this.files.push({ file, reason });

  report(printer: { note(text: string): void }, dir: string): void {
    const n = this.files.length;
    if (n === 0) return;
    this.files.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)); // the same line whatever the directory's order
    const named = this.files
      .slice(0, 3)
      .map(({ file, reason }) => `${sanitizeLine(file)} (${reason})`)
      .join(", ");
    printer.note(
      `skipped ${n === 1 ? "a file" : `${n} files`} in ${sanitizeLine(dir)} that ${n === 1 ? "is" : "are"} not a readable task handle: ${named}${n > 3 ? `, and ${n - 3} more` : ""}`,
    );
  }
}
