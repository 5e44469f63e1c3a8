#!/usr/bin/env node
// Deliberately buggy stores, for sim/tests/it/node_durable.rs: `node store.js VARIANT`.
//
// Each is the correct JavaScript `durable` (adapters/node/durable.js) with ONE plausible
// bug; the harness must catch each through `exec:` and shrink it to a short scenario.
//
//   live-order       renders live rows sorted by turn id (rows with no turn first), so a
//                    queued or optimistic user row jumps above the streaming reply
//                    (inv5-render-shape: live rows in the order their content happened).
//   text-match       a live user row is durable when a chunk holds a text equal to the
//                    row's (a user chunk's text, or a tool result's `[USER INTERRUPT]`
//                    block) instead of its message id: in a world of colliding texts the
//                    second "ok", still queued, goes when the first "ok" is sealed.
//   substring-match  the same with "contains": a user row is durable when some chunk's
//                    text contains the row's text (`msg:m1` is in `msg:m10`, "ok" in
//                    "ok thanks").
//   row-count-ids    numbers a new assistant row by the current row count (chunks + live),
//                    as durable.js did before it counted the live rows it created: a
//                    snapshot that retires more live rows than it adds chunks lowers the
//                    count, a later segment of a turn gets the id of an earlier one still
//                    live, and the next delta grows the earlier row (inv5-render-shape).
//                    Random seeds rarely reach it (none in 100000 per strategy), so it is
//                    tested on the committed scenario, not caught by fuzzing.
//   status-split     a `status` event ends the streaming segment (the status badge
//                    re-renders and forgets `currentAssistantId`), so the next delta of
//                    the same run opens a second assistant row with no user row between
//                    (inv5-render-shape: a run is split only around a user row).
//
// Speaks docs/protocol.md through adapters/node/protocol.js.

"use strict";

const path = require("path");
const node = path.join(__dirname, "../../../adapters/node");
const { serve } = require(path.join(node, "protocol.js"));
const { DurableStore, liveRow } = require(path.join(node, "durable.js"));

const INTERRUPT = "[USER INTERRUPT]";

/** The message texts a chunk holds: a user row's text, a tool result's interrupt blocks. */
function textsHeld(chunk) {
  if (chunk.role === "user") return [chunk.text];
  if (chunk.role === "tool-result") return chunk.text.split(INTERRUPT).slice(1).map((t) => t.trim());
  return [];
}

class LiveOrder extends DurableStore {
  render() {
    // BUG: "group the live tail by turn": sorted by turn id, unbound rows (no turn) first.
    const live = this.live.slice().sort((a, b) => (a.turnId ?? -1) - (b.turnId ?? -1));
    return this.chunks.concat(live.map(liveRow));
  }
}

class TextMatch extends DurableStore {
  isDurable(row, chunks) {
    if (row.key.message === undefined) return super.isDurable(row, chunks);
    // BUG: identity by text, not by message id.
    return chunks.some((c) => textsHeld(c).includes(row.text));
  }
}

class SubstringMatch extends DurableStore {
  isDurable(row, chunks) {
    if (row.key.message === undefined) return super.isDurable(row, chunks);
    // BUG: identity by "the chunk's text contains the row's text".
    return chunks.some((c) => c.text.includes(row.text));
  }
}

class RowCountIds extends DurableStore {
  handle(input) {
    // BUG: ids from the current row count, which a snapshot can lower. (An input pushes at
    // most one row, after textDelta has taken its number, so this is the old numbering.)
    this.liveRowsCreated = this.chunks.length + this.live.length;
    return super.handle(input);
  }
}

class StatusSplit extends DurableStore {
  handleEvent(event, effects) {
    // BUG: a status update ends the segment, as a tool event does.
    if (event.type === "status") this.endSegment();
    super.handleEvent(event, effects);
  }
}

const VARIANTS = {
  "live-order": LiveOrder,
  "text-match": TextMatch,
  "substring-match": SubstringMatch,
  "row-count-ids": RowCountIds,
  "status-split": StatusSplit,
};

const variant = process.argv[2];
const Store = VARIANTS[variant];
if (Store === undefined) {
  process.stderr.write(`usage: node store.js VARIANT (one of: ${Object.keys(VARIANTS).join(", ")}); got ${JSON.stringify(variant)}\n`);
  process.exit(2);
}
serve({ name: `buggy:${variant}`, makeStore: () => new Store() });
