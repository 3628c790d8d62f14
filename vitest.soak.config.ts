// The soak alone (`npm run soak`): 200 tasks under chaos, minutes of wall time, so not part of `npm test`'s vitest
// run (vitest.config.ts leaves it out). It prints its seed; SOAK_SEED=<seed> replays the same schedule.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    pool: "threads",
    include: ["test/soak/soak.test.ts"],
    // The soak's own bound is on its test (its wall-clock budget); this is for the hooks around it.
    hookTimeout: 60_000,
    maxWorkers: 1,
    setupFiles: ["test/helpers/setup.ts"],
    // Names (and fails on) any process the suite started that is still running after the last file.
    globalSetup: ["test/helpers/global-setup.ts"],
  },
});
