// The one queue of questions waiting for a person: what the engines ask (through `provider`) waits here in the order
// asked, whoever shows it: the dashboard (its model's state; the list and the form), the live view of `call` and
// `watch` (its head), the line prompt (its head, asked on stderr: ./line-prompt.ts). Each is answered through
// `answer` (or `fail`, when asking could not be done); a question the task moved on from leaves the queue.
import { InterruptedError, McpTaskError } from "../errors.js";
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
            // Ctrl-C (or SIGTERM) stops the waiting for it: the person did that, the task did not move on.
            const stopped = signal.reason instanceof InterruptedError;
            this.state.change({
              questions: this.state.questions().filter((q) => q.id !== id),
              ...(stopped ? {} : { notice: "a question was withdrawn: the task moved on" }),
            });
            reject(new McpTaskError("question withdrawn"));
          },
          { once: true },
        );
      }),
  };

  /**
   * Takes every question of `taskId` off the queue (the screen, the count, an open form): the task has ended, so
   * nothing can answer them any more (its server may have given up on them without a word). `why` is said.
   */
  withdrawTask(taskId: string, why: string): void {
    const gone = this.state.questions().filter((q) => q.taskId === taskId);
    if (gone.length === 0) return;
    for (const question of gone) {
      const waiter = this.pending.get(question.id);
      this.pending.delete(question.id);
      waiter?.reject(new McpTaskError("question withdrawn"));
    }
    this.state.change({
      questions: this.state.questions().filter((q) => q.taskId !== taskId),
      notice: `a question was withdrawn: ${why}`,
    });
  }

  /** Answers a question; it leaves the queue once handed to the engine. One no longer asked is refused, saying why. */
  answer(questionId: number, response: InputResponse): void {
    const waiter = this.pending.get(questionId);
    if (!waiter) {
      // (An answer to a question on screen when it was withdrawn: the person submitted the form in that frame.)
      this.state.change({
        questions: this.state.questions(),
        notice: "not sent: the question was withdrawn (its task ended, or its server stopped waiting for it)",
      });
      return;
    }
    this.pending.delete(questionId);
    this.state.change({
      questions: this.state.questions().filter((q) => q.id !== questionId),
      notice: response.action === "accept" ? "answer sent" : `${response.action} sent`,
    });
    waiter.resolve(response);
  }

  /** The question could not be asked (the terminal closed while it was): its asker hears `error`. */
  fail(questionId: number, error: Error): void {
    const waiter = this.pending.get(questionId);
    if (!waiter) return;
    this.pending.delete(questionId);
    this.state.change({ questions: this.state.questions().filter((q) => q.id !== questionId) });
    waiter.reject(error);
  }

  /** Refuses every question still waiting (the view closes). */
  close(why = "dashboard closed"): void {
    for (const waiter of this.pending.values()) waiter.reject(new McpTaskError(why));
    this.pending.clear();
  }
}
