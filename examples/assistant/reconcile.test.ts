// The gate, in vitest, through the engine inside Node (the npm package reconcile-sim): the
// store as it ships, the mapping file reconcile/adapter.ts (which declares the backend's
// contract), the known classes in known/: one per class its three planted bugs cause.
// Green while the store shows only those; a new class is a failing test named after it,
// with its scenario file and the command that replays it.
import { gate } from "reconcile-sim/vitest";

await gate({
  adapter: "reconcile/adapter.ts",
  known: "known",
  // No regression scenarios of its own (the note's, in examples/production, are about
  // stores that POST with their own ids); the known witnesses are replayed.
  allowEmpty: true,
  seeds: 1000,
  out: "reconcile-failures",
});
