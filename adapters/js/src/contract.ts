// The backend's contract: what the app's transport and backend always (or never) do, in
// reconcile-sim's `--world` vocabulary, declared once in the mapping and sent in the
// `hello` answer (`"world": ["ordered-socket", "consume_reasons=true", …]`). The harness
// applies it as `--world` pins on every command (a `--world` flag still overrides it), so
// a team stops repeating flags on `check`, `nightly` and the vitest `gate`, and findings
// that need a world the backend never produces are never drawn.
//
// The harness knows the option names and checks them (an unknown name or a bad value is a
// clear error there, naming the valid ones); this file only checks the shape, so that an
// adapter never refuses an option a newer harness knows.

/**
 * The world options reconcile-sim knows today (`reconcile-sim run --help`,
 * `sim/src/model/pins.rs`), typed for completion; any other name is passed on for the
 * harness to judge. A value is a boolean, a whole number, `"tokens"`/`"colliding"`, or a
 * range string (`"1..=2"`, `"1..3"`).
 */
export interface WorldObject {
  /** A named profile: `"ordered-socket"` (one ordered WebSocket per tab) or `"note"` (nothing pinned). */
  profile?: string;
  clients?: number | string;
  passive_observer?: boolean;
  sends_per_client?: number | string;
  scrolls_per_client?: number | string;
  deltas_per_segment_max?: number | string;
  tool_calls_per_turn_max?: number | string;
  turn_failures?: boolean;
  ws_reorder_window?: number | string;
  status_on_connect?: boolean;
  message_texts?: "tokens" | "colliding";
  continuation_drains?: boolean;
  consume_reasons?: boolean;
  queued_texts?: boolean;
  server_ids?: boolean;
  deltas_without_turn_ids?: boolean;
  [option: string]: boolean | number | string | undefined;
}

/** `["ordered-socket", "consume_reasons=true"]` (`--world` syntax, one value a string) or a {@link WorldObject}. */
export type WorldDeclaration = readonly string[] | WorldObject;

/** One `--world` value: a profile name, `NAME=VALUE`, `NAME=A..B` / `NAME=A..=B`, or a JSON file's path. */
const WORLD_VALUE = /^[^\s=]+(=\S+)?$/;
const OPTION_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * The declaration as the list of `--world` values the `hello` answer carries, in the
 * order given (the object form: the profile first, then each option in key order as
 * written). Throws a message naming the bad entry.
 */
export function normaliseWorld(world: WorldDeclaration | undefined): string[] {
  if (world === undefined) return [];
  const fail = (why: string): never => {
    throw new Error(`world: ${why} (each entry is a --world value: "ordered-socket", "consume_reasons=true", "sends_per_client=1..=2"; or an object { profile?, <option>: value })`);
  };
  if (Array.isArray(world)) {
    return world.map((v, i) => {
      if (typeof v !== "string") return fail(`entry ${i} is ${JSON.stringify(v)}, not a string`);
      const s = v.trim();
      if (!WORLD_VALUE.test(s)) return fail(`entry ${i} ${JSON.stringify(v)} is not one --world value`);
      return s;
    });
  }
  if (world === null || typeof world !== "object") return fail(`expected an array of strings or an object, got ${JSON.stringify(world)}`);
  const out: string[] = [];
  const object = world as WorldObject;
  if (object.profile !== undefined) {
    if (typeof object.profile !== "string" || !WORLD_VALUE.test(object.profile) || object.profile.includes("=")) {
      return fail(`profile must be a profile's name, got ${JSON.stringify(object.profile)}`);
    }
    out.push(object.profile);
  }
  for (const name of Object.keys(object)) {
    if (name === "profile") continue;
    const value = object[name];
    if (value === undefined) continue;
    if (!OPTION_NAME.test(name)) return fail(`${JSON.stringify(name)} is not an option name`);
    let text: string;
    if (typeof value === "boolean") text = String(value);
    else if (typeof value === "number") {
      if (!Number.isInteger(value) || value < 0) return fail(`${name} must be a whole number >= 0, got ${value}`);
      text = String(value);
    } else if (typeof value === "string" && /^\S+$/.test(value)) text = value;
    else return fail(`${name} has the value ${JSON.stringify(value)}: expected true/false, a whole number, or a string such as "1..=2"`);
    out.push(`${name}=${text}`);
  }
  return out;
}
