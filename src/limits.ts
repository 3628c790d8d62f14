// Every bound mcp-task puts on what a server, a store file or an input can make it do, in one place. SECURITY.md
// lists them. Each constant says what it bounds and why the figure; code elsewhere imports from here.

// ---- messages: size of one message from a server ----
/** One JSON-RPC message (a stdio line, an HTTP JSON body, one SSE event): past it the connection ends. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** A task's status message is cut here before it is shown or stored. */
export const MAX_STATUS_MESSAGE = 4000;

// ---- tasks: timing and identity a server controls ----

// ---- input: questions and answers ----
/** The most questions one engine answers for one task: a server that never stops asking is stopped here (exit 6). */
export const MAX_ANSWERS_PER_TASK = 32;
/** V2 request-level input rounds before a call is answered. */
export const MAX_INPUT_ROUNDS = 16;
/**
 * A question asked while its call is on its way, that the command cannot answer, is kept for the task the call
 * creates; a server that holds back its reply until the answer comes would hold the command for ever, so after this
 * long without a reply the server is told the question is not answered (as before keeping). 5 s: a reply that is
 * not held back comes within a round trip or two.
 */
export const HELD_CALL_QUESTION_MS = 5000;

// ---- schemas: what a tool or form schema may cost ----

// ---- store: what mcp-task reads back from disk ----
/** Results longer than this (as JSON) are not kept in handles; they are read from the server again. */
export const MAX_SAVED_RESULT_CHARS = 1_000_000;

// ---- processes and streams ----
/**
 * The longest a broker keeps a stdio server up for a task that does not end (or whose ttl is unlimited): a server
 * that calls a task working for ever cannot keep its broker for ever. A day covers a human approval left overnight.
 */
export const MAX_BROKER_FOLLOW_MS = 24 * 60 * 60 * 1000;
/**
 * How often, and how far apart, a resumed V1 session's standalone GET stream is tried while the server answers 409
 * (a session has one GET stream, and the previous holder's, the command that handed the session to its keeper, is
 * still being closed): 10 x 200 ms covers a loopback close under load; then the session goes on without it.
 */
export const GET_STREAM_TRIES = 10;
export const GET_STREAM_RETRY_MS = 200;
