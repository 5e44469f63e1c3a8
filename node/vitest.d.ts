import type { CheckOptions, CheckResult } from "./index.js";

/** Run the check and register its results as vitest tests (await it at the top level of a test file). */
export function gate(options: CheckOptions): Promise<CheckResult>;
