// Types of the npm package reconcile-sim (index.js).

/** Options every command takes: the mapping, the adapter's options, the worlds. */
export interface CommonOptions {
  /** The mapping file (`defineAdapter`), as `reconcile-sim-adapter ADAPTER` serves it. */
  adapter: string;
  /** A store module handed to the mapping's factory (`reconcile-sim-adapter --store`). */
  store?: string;
  /** The project root (default: the nearest package.json above the mapping). */
  root?: string;
  /** The name in the adapter's hello (`--name`). */
  name?: string;
  /** Re-evaluate every user module on each reset (`--fresh-module`). */
  freshModule?: boolean;
  /** `--delta-prefix`. */
  deltaPrefix?: string;
  /** `Harness.args` (`-- ARGS`). */
  args?: string[];
  /** Relative paths are taken from here (default: as given, from the current directory). */
  cwd?: string;
  /** Where failures are saved (default `reconcile-failures`). */
  out?: string;
  /** `--world` values: pins, ranges, profiles (`ordered-socket`), or a JSON file. */
  world?: string | string[];
  /** `--invariants LIST`. */
  invariants?: string;
  /** `--skip LIST`. */
  skip?: string;
  /** `--strategy` (default `random`). */
  strategy?: string;
  /** `--depth` (with `pct`). */
  depth?: number;
  /** `--max-shrink-iters`: replays shrinking may spend on one failure (default 50 000). */
  maxShrinkIters?: number;
  /** `--max-shrink-time` in milliseconds: time shrinking may spend on one failure (default 60 000). */
  maxShrinkTimeMs?: number;
  /**
   * Worker threads (default 1): each runs one shard of the seeds with its own engine and
   * adapters, and the parts are merged, so results do not depend on it. A `fuzz`'s
   * workers then settle (recheck, shrink, find the needs of) the whole campaign's failures
   * between them, each once.
   */
  workers?: number;
  /** How printed commands name the CLI (default `npx reconcile-sim`). */
  program?: string;
}

export interface FuzzOptions extends CommonOptions {
  seeds: number;
  seedStart?: number;
  noClasses?: boolean;
}

export interface CheckOptions extends CommonOptions {
  /** The scenarios replayed (default `scenarios`, which may be missing: no scenarios; a folder named here must exist). */
  scenarios?: string;
  /** The baseline of known classes (`--known`). */
  known?: string;
  /** Seeds fuzzed (default 10 000). */
  seeds?: number;
  /** Where the seeds start: a number, or any string (a commit hash), hashed. */
  seed?: string | number;
  allowEmpty?: boolean;
  noCheckDeterminism?: boolean;
}

export interface FuzzResult {
  /** A line per store that stated settings (an adapter's virtual clock). */
  settings: string;
  /** The table the CLI prints. */
  table: string;
  /** Every class with its scenario file and replay command. */
  details: string;
  warnings: string[];
  notWritten: string | null;
  runs: number;
  failed: boolean;
  /** The CLI's `--json` object. */
  result: unknown;
}

/** A failure of a class the baseline does not hold, shrunk and saved. */
export interface NewClass {
  name: string;
  invariant: string;
  store: string;
  seed: number | null;
  path: string;
  steps: number;
  /** The command that replays it. */
  replay: string;
  notSaved: string | null;
}

export interface CheckResult {
  settings: string;
  /** The report the CLI prints. */
  text: string;
  found: NewClass[];
  failingBatches: string[];
  failed: boolean;
  notWritten: string[];
  /** The CLI's `--json` report. */
  result: any;
}

/** `reconcile-sim fuzz --store exec:'reconcile-sim-adapter ADAPTER'`, in this process. */
export function fuzz(options: FuzzOptions): Promise<FuzzResult>;
/** `reconcile-sim check --store exec:'reconcile-sim-adapter ADAPTER'`, in this process. */
export function check(options: CheckOptions): Promise<CheckResult>;
/** The HTML page of each scenario file in `options.files`, written beside it (`reconcile-sim report FILE`). */
export function report(options: CommonOptions & { files: string | string[] }): Promise<{ reports: Array<{ file: string; page?: string; error?: string }> }>;
/** Throws with the report when the result failed; else returns it. */
export function assertGate<R extends FuzzResult | CheckResult>(result: R | Promise<R>): Promise<R>;
/** The `exec:` store that serves the same adapter as a process (the name in results). */
export function execStore(options: CommonOptions): string;
