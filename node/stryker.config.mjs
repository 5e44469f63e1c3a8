// StrykerJS over the package's own JavaScript (index.js, vitest.js, worker.js; docs/mutation.md,
// "StrykerJS"), judged by its node --test suite, which needs the engine built
// (`npm run build -- --profile checked`) and the CLI (../target/checked/reconcile-sim).
// The command runner runs the suite per mutant, in place; the active mutant reaches the worker
// threads and the spawned CLI through the environment.
//
//   npm run build -- --profile checked && npx stryker run
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  mutate: ["index.js", "vitest.js", "worker.js"],
  testRunner: "command",
  commandRunner: { command: process.env.STRYKER_TESTS ?? "node --test test/*.test.mjs" },
  // In place (the files are restored after the run): the tests find the repository, the
  // CLI and the reference adapter relative to their own path, which a sandbox copy breaks.
  inPlace: true,
  concurrency: 1,
  timeoutMS: 120000,
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
