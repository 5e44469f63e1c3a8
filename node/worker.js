// One worker thread of a parallel command (index.js, `workers`): it loads the mapping and
// runs its shard of the command with an engine and adapters of its own, and posts the
// reply (with its result file) back.
import { parentPort, workerData } from "node:worker_threads";
import { runHere } from "./index.js";

try {
  parentPort.postMessage({ reply: await runHere(workerData.options, workerData.command) });
} catch (e) {
  parentPort.postMessage({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
}
