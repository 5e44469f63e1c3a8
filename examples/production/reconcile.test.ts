// The gate, in vitest, through the engine inside Node (the npm package reconcile-sim): the
// store as it ships, the mapping file reconcile/adapter.ts, the known classes in known/.
// Green while the store shows only those; a new class is a failing test named after it,
// with its scenario file and the command that replays it.
import { gate } from "reconcile-sim/vitest";

await gate({
  adapter: "reconcile/adapter.ts",
  scenarios: "scenarios",
  known: "known",
  seeds: 1000,
  out: "reconcile-failures",
});
