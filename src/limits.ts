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

// ---- schemas: what a tool or form schema may cost ----
// A schema (a tool's inputSchema/outputSchema, an elicitation's requestedSchema) is measured before anything compiles,
// walks or draws it (src/protocol/schema-bounds.ts); one past a bound is a protocol violation (exit 4) naming it.
/** How deeply a schema nests (JSON levels): real tool schemas nest a dozen; 20,000 levels overflowed the stack. */
export const MAX_SCHEMA_DEPTH = 64;
/**
 * Values in one schema (objects, arrays, strings, numbers...). AJV's compile is not interruptible and costs about
 * 1 ms per property schema on a loaded machine (1,000 properties: 0.9-1.7 s at load 11 on 2 cores): this caps it.
 */
export const MAX_SCHEMA_NODES = 10_000;
/** Keys in one object of a schema (a `properties` map, say): past it a schema is a list of data, not a shape. */
export const MAX_SCHEMA_KEYS = 1_000;
/** Characters in one string or key of a schema (a description, an enum value). */
export const MAX_SCHEMA_STRING = 16_384;
/** Characters in one `pattern` (or `patternProperties` key): compiled by a linear-time engine, but compiled. */
export const MAX_SCHEMA_PATTERN = 1_000;
/** Schema errors named in one complaint (AJV lists them all: 1,900 missing fields made a 78 KB warning line). */
export const MAX_SCHEMA_ERRORS = 5;
/** Fields in one form a person fills in (an elicitation, or a tool's arguments in the dashboard). */
export const MAX_FORM_FIELDS = 100;

// ---- store: what mcp-task reads back from disk ----
/** Results longer than this (as JSON) are not kept in handles; they are read from the server again. */
export const MAX_SAVED_RESULT_CHARS = 1_000_000;

// ---- processes and streams ----
