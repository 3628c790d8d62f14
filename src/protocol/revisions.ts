// The spec revisions a wire's tasks follow, and what above src/protocol depends on which one it is: the sections of
// the spec `mcp-task check` enforces (a table keyed by revision, read with `specSection`) and how long a kept
// verdict of a server's generation is trusted (`verdictStanding`, for the store).
import type { PriorDiscovery } from "@modelcontextprotocol/client";

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

/**
 * The longest a verdict is used without asking the server: a 2025-11-25 one goes stale silently (an upgraded server
 * still answers initialize), so it is found again daily; a 2026-07-28 server's discover result is used unchecked at
 * most this long, whatever its ttlMs says (the SDK's MAX_CACHE_TTL_MS).
 */
const VERDICT_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * How a kept verdict stands `ageMs` after it was found: "fresh" (used without asking the server), "likely" (the
 * likely generation, which the connection checks before use: connect.ts), or undefined (found again). A 2025-11-25
 * one is fresh for a day, then gone. A 2026-07-28 one (its `server/discover` result) is fresh for its `ttlMs` (at
 * most a day; `0`, the usual: never), and likely after. A clock set back (a negative age) makes none fresh.
 */
export function verdictStanding(verdict: PriorDiscovery, ageMs: number): "fresh" | "likely" | undefined {
  if (verdict.kind === "legacy") return ageMs >= 0 && ageMs <= VERDICT_MAX_AGE_MS ? "fresh" : undefined;
  const ttl = verdict.discover?.ttlMs;
  const freshFor = typeof ttl === "number" && ttl > 0 ? Math.min(ttl, VERDICT_MAX_AGE_MS) : 0;
  return ageMs >= 0 && ageMs < freshFor ? "fresh" : "likely";
}
