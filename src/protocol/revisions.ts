// The spec revisions a wire's tasks follow, and what above src/protocol depends on which one it is: the sections of
// the spec `mcp-task check` enforces (a table keyed by revision, read with `specSection`).

/** The protocol generations: 2025-11-25 core tasks ("V1"), the 2026-07-28 tasks extension ("V2"). */
export type Generation = "v1" | "v2";

/** 2025-11-25 core tasks ("V1"), the 2026-07-28 tasks extension ("V2"). */
export type SpecRevision = "2025-11-25" | "2026-07-28";

const REVISIONS: Record<Generation, SpecRevision> = { v1: "2025-11-25", v2: "2026-07-28" };

/** The revision a generation's tasks follow (Wire.capabilities.revision). */
export const revisionOf = (generation: Generation): SpecRevision => REVISIONS[generation];

/** Where each revision writes its tasks rules (anchors as the published pages have them). */
const TASKS_PAGE: Record<SpecRevision, string> = {
  "2025-11-25": "basic/utilities/tasks",
  "2026-07-28": "io.modelcontextprotocol/tasks",
};

/**
 * A rule as each revision writes it: "#anchor" on that revision's tasks page, or "page#anchor" elsewhere in it. A
 * revision left out has no such rule.
 */
export type SpecRules = Partial<Record<SpecRevision, string>>;

/** The section `rules` names in `revision` ("<revision> <page>#<anchor>"), or undefined where it has no such rule. */
export function specSection(rules: SpecRules, revision: SpecRevision): string | undefined {
  const rule = rules[revision];
  if (rule === undefined) return undefined;
  return `${revision} ${rule.startsWith("#") ? TASKS_PAGE[revision] : ""}${rule}`;
}
