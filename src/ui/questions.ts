// The dashboard's questions: what the engines ask is queued for the person (shown by the views from the model's
// state) and answered through `answer`; a question the task moved on from is taken off the screen.
import { McpTaskError } from "../errors.js";
import type { InputRequest, InputResponse } from "../protocol/wire.js";
import type { InputProvider } from "../tasks/input.js";

export interface Question {
  id: number;
  taskId: string | null;
  request: InputRequest;
}

/** How the queue reads and changes the model's state (its questions, and the notice of what just happened). */
export interface QuestionState {
  questions(): readonly Question[];
  change(change: { questions: readonly Question[]; notice?: string }): void;
}

export class QuestionQueue {
  private readonly pending = new Map<number, { resolve: (r: InputResponse) => void; reject: (e: Error) => void }>();
  private nextQuestion = 1;

  constructor(private readonly state: QuestionState) {}

  /** Where the engines' questions go: queued for the person, answered through `answer`. */
  readonly provider: InputProvider = {
    available: true,
    sampling: true,
    answer: (request, taskId, signal) =>
      new Promise<InputResponse>((resolve, reject) => {
        const id = this.nextQuestion++;
        this.pending.set(id, { resolve, reject });
        this.state.change({ questions: [...this.state.questions(), { id, taskId, request }] });
        // The task moved on without this answer: take the question off the screen.
        signal?.addEventListener(
          "abort",
          () => {
            if (!this.pending.delete(id)) return;
            this.state.change({
              questions: this.state.questions().filter((q) => q.id !== id),
              notice: "a question was withdrawn: the task moved on",
            });
            reject(new McpTaskError("question withdrawn"));
          },
          { once: true },
        );
      }),
  };

  /** Answers a question; it leaves the queue once handed to the engine. */
  answer(questionId: number, response: InputResponse): void {
    const waiter = this.pending.get(questionId);
    if (!waiter) return;
    this.pending.delete(questionId);
    this.state.change({
      questions: this.state.questions().filter((q) => q.id !== questionId),
      notice: response.action === "accept" ? "answer sent" : `${response.action} sent`,
    });
    waiter.resolve(response);
  }

  /** Refuses every question still waiting (the dashboard closes). */
  close(): void {
    for (const waiter of this.pending.values()) waiter.reject(new McpTaskError("dashboard closed"));
    this.pending.clear();
  }
}
