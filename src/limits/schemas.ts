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
