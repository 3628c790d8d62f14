// ---- input: questions and answers ----
// How many questions a server may ask, and how long a question or a call waits for its answer or reply.
/** The most questions one engine answers for one task: a server that never stops asking is stopped here (exit 6). */
export const MAX_ANSWERS_PER_TASK = 32;
/**
 * An answered question the server still lists after IGNORED_ANSWER_READS reads and IGNORED_ANSWER_MS was acknowledged and
 * ignored, and input_required with nothing asked that lasts as long asks nothing a client can answer: either ends the
 * wait (exit 4) instead of reading on for ever. 10 reads and 5 s: a server that takes an answer lists the question no
 * more within a read or two. MCP_TASK_IGNORED_WAIT (a duration) sets the time part (tests that must sit through it).
 */
export const IGNORED_ANSWER_READS = 10;
export const IGNORED_ANSWER_MS = 5_000;
/** V2 request-level input rounds before a call is answered. */
export const MAX_INPUT_ROUNDS = 16;
/**
 * A question asked while its call is on its way, that the command cannot answer, is kept for the task the call
 * creates; a server that holds back its reply until the answer comes would hold the command for ever, so after this
 * long without a reply the server is told the question is not answered (as before keeping). 5 s: a reply that is
 * not held back comes within a round trip or two. MCP_TASK_HELD_QUESTION (a duration, read by the broker with its
 * other settings: src/broker/paths.ts) sets it otherwise, as the tests that wait it out do.
 */
export const HELD_CALL_QUESTION_MS = 5000;
/**
 * Questions a broker leaves unanswered at once because none of its tasks or calls could have asked them (a server
 * that sends each question to all its sessions: src/broker/questions.ts). Each waits until the server withdraws it,
 * holding the request as the server sent it; past this many the next is refused, so a server that floods a session
 * with such questions costs the broker at most this many. 16: a server asks one question per task at a time, and
 * a session with no task of its own sees one per task of the other sessions.
 */
export const MAX_UNCLAIMED_QUESTIONS = 16;
/**
 * How long a command gives a V1 question its handle says went out of reach (its keeper stopped, or the task was
 * imported while it waited) to come again before saying it cannot (exit 4, question_lost): a 2025-11-25 server may
 * hand it again to the keeper the command starts, which asks for it once it sees the task wait (a round trip or
 * two); read again every QUESTION_REDELIVERY_STEP_MS meanwhile. A question that never comes costs a command this
 * once, never a wait without bound.
 */
export const QUESTION_REDELIVERY_WAIT_MS = 5000;
export const QUESTION_REDELIVERY_STEP_MS = 500;
/** How long a call refused with -32042 (URLElicitationRequiredError) waits, once its web pages were opened, for the
 *  server's `notifications/elicitation/complete` of each before it gives up (exit 6, the pages listed): a person
 *  signs in or pays in the browser. */
export const URL_ELICITATION_WAIT_MS = 5 * 60 * 1000;
/** How many times one call refused with -32042 is retried after its web pages were visited: a server that asks for
 *  new pages at every retry does not make mcp-task open pages forever. */
export const MAX_URL_ELICITATION_ROUNDS = 3;
/** After Ctrl-C, SIGTERM or --timeout while a call that may become a task is still unanswered, how long its reply is
 *  waited for (to save the task's handle): a task's create reply is meant to come at once, and SIGTERM_EXIT_MS must
 *  leave time to save it and say so. */
export const CREATE_REPLY_WAIT_MS = 3000;
