// StrykerJS over the adapter's sources (docs/mutation.md, "StrykerJS"): every mutant of
// src/*.ts is compiled in (mutant schemata), built once by `npm run build` in Stryker's
// sandbox (tsc and the esbuild bundle of dist/cli.cjs, which the tests start as adapter
// processes: the active mutant reaches them through the environment), and judged by the
// node --test suite. The command runner runs the whole suite per mutant (no per-test
// coverage: most of the adapter runs in the processes the tests spawn, where a runner's
// coverage hook does not reach). STRYKER_TESTS narrows it to a documented part of the suite.
//
//   npx stryker run                                   # every mutant, the whole suite
//   STRYKER_TESTS="node --test test/render.test.mjs test/pinned.test.mjs" \
//     npx stryker run --mutate src/render.ts          # one file, the tests that reach it
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  mutate: ["src/**/*.ts"],
  testRunner: "command",
  commandRunner: { command: process.env.STRYKER_TESTS ?? "node --test test/*.test.mjs" },
  buildCommand: "npm run build",
  // One mutant at a time: the machine is shared, and each mutant's tests start processes.
  concurrency: 1,
  timeoutMS: 60000,
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
