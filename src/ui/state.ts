// What the dashboard's model (./model.ts) holds and its views are drawn from: a row per saved task, the questions
// waiting for the person, the notice of what just happened. Plain data; the views import it from here, not the model.
import type { FinalOutcome, Handle, HandleSummary } from "../model.js";
import type { Question } from "../ask/queue.js";
import type { QuestionHolder } from "../protocol/wire.js";

export type Connection = "idle" | "connecting" | "following" | "reconnecting" | "error";

export interface TaskRow {
  stem: string;
  /** What the list shows, filters and sorts by. */
  summary: HandleSummary;
  /** The full handle: only for a task being followed (kept in step) and the one open in the detail view. */
  handle?: Handle;
  /** Why the full handle of the task open in the detail view could not be read. */
  unreadable?: string;
  /** Following state of a task that is not finished. */
  connection: Connection;
  error?: string;
  /** The last progress the server reported for it (a call this dashboard started; else its handle's, if followed). */
  progress?: Handle["progress"];
  /** Who holds its question, where another process does (InputRequest.heldBy): the row and the detail say so. */
  held?: QuestionHolder;
}

export interface DashboardState {
  rows: readonly TaskRow[];
  /** Saved handles not read yet (a large store's first frame shows its newest page: see DashboardModel.start). */
  unread: number;
  questions: readonly Question[];
  /** A one-line notice for the status bar (what just happened). */
  notice?: string;
  version: number;
}

/** A call the server answered at once, without a task: nothing is saved, so the dashboard shows it there and then. */
export interface AnsweredAtOnce {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  outcome: FinalOutcome;
}
