// The gate, in vitest, through the engine inside Node (the npm package reconcile-sim): the
// note's store (src/) through the mapping file adapter.ts, its known classes in
// known/current. Green while the store shows only those; a new class is a failing test
// named after it, with its scenario file and the command that replays it.
import { gate } from "reconcile-sim/vitest";

await gate({
  adapter: "adapter.ts",
  scenarios: "scenarios",
  known: "known/current",
  seeds: 1000,
  out: "reconcile-failures",
});
