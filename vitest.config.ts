import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    pool: "threads",
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    // The soak runs on its own: `npm run soak` (vitest.soak.config.ts), after `npm test` in CI.
    exclude: [...configDefaults.exclude, "test/soak/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real servers and real processes on two cores: much of a file's time is spent waiting on them, so three files
    // at once (measured on this 2-core machine: 17 min with two, 14 with four at once, every test passing).
    maxWorkers: 3,
    // A worker's modules are loaded once for all the files it runs, not again for each (a file that mocks a module
    // loads what uses it afresh: settings.test.ts).
    isolate: false,
    setupFiles: ["test/helpers/setup.ts"],
    // Names (and fails on) any process the suite started that is still running after the last file.
    globalSetup: ["test/helpers/global-setup.ts"],
  },
});
