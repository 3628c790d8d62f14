import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    pool: "threads",
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    // The soak runs on its own: `npm run soak` (vitest.soak.config.ts), after `npm test` in CI.
    exclude: [...configDefaults.exclude, "test/soak/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real servers and real processes: two cores, so few files at once.
    maxWorkers: 2,
    setupFiles: ["test/helpers/setup.ts"],
  },
});
