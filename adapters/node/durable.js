// `durable` in plain JavaScript: a store that keeps or drops a live row on positive,
// direct evidence of durability, never on a proxy.
//
// It mirrors the Rust store `sim/src/store/durable/mod.rs` rule for rule (same live row ids,
// same effects, same render); `cargo test --test it node_durable` drives both in lockstep
// and fails on the first step where they differ. The rules, as there:
//
// 1. A live user row (this tab's own send, keyed by message id) is dropped iff an applied
//    snapshot holds its message id (a chunk's `message_ids`: the user row's own id, or the
//    ids folded into a tool result as `[USER INTERRUPT]` blocks).
// 2. A live row streamed for turn T (assistant text, tool call, tool result) is dropped iff
//    an applied snapshot says T was written (`written_turns`); once it has, further events
//    of T (a late delta overtaken by the fetch) are not shown live.
// 3. A snapshot older than one already applied (`snapshot_seq` smaller) is ignored.
// 4. Reconcile is triggered by `turn-sealed` and deferred while scrolled up.
// 5. A turn's text streams into its current row in place (`currentAssistantId`) until a
//    tool event (of any turn) ends the segment. A new assistant row's id is `a-t<T>-<n>`,
//    n the number of live rows the store had created before it, so no two rows ever share
//    an id (numbering by the current row count reused ids once a snapshot retired more live
//    rows than it added chunks; see durable.rs).
//
// 6. A delta without a turn id (beyond the note: `deltas_without_turn_ids`) belongs to the
//    turn of the last `turn-start`.
// 7. Where live rows go: the render policy (`RenderPolicy` in durable.rs), one of
//    - "in-place" (`durable`): arrival order; the turn's streaming row grows in place, also
//      above a message the user sent while it streams;
//    - "arrival" (`durable-arrival`): arrival order; a send ends the streaming row, so the
//      text that follows opens a new assistant row below the user's own row;
//    - "db-order" (`durable-db-order`): the order the DB will hold the rows, as far as the
//      tab has been told: the user's own messages stay below all streamed content until an
//      event places them (`message-consumed` naming them, or the first event of a new
//      turn); placing one ends the streaming row, which is split where the message will
//      be written. `cargo test --test it node_durable` drives each against its Rust twin.
//
// `message-queued`, `message-consumed`, `status` and `post-response` change nothing that
// decides keep/drop; `turn-start` names the turn a delta without a turn id belongs to, and
// under "db-order" `turn-start` and `message-consumed` place pending messages (rule 7).
//
// Wire values (docs/protocol.md): message and turn ids are numbers (`3` is `m3` / `t3`).

"use strict";

const { canonicalJson } = require("./protocol");

/** `m3` for message 3. */
const messageName = (id) => `m${id}`;
/** `t3` for turn 3. */
const turnName = (id) => `t${id}`;

/** The render policies (rule 7), by name. */
const POLICIES = ["in-place", "arrival", "db-order"];

class DurableStore {
  /** `policy`: one of POLICIES (rule 7); "in-place" is `durable`. */
  constructor(policy = "in-place") {
    if (!POLICIES.includes(policy)) throw new Error(`unknown render policy ${JSON.stringify(policy)}`);
    /** SEALED rows, as render rows: { from: "sealed", seq, role, turn_id, text }. */
    this.chunks = [];
    /**
     * TRANSIENT rows: { id, role, turnId (undefined for a user row), text, key }, where
     * `key` is what retires the row: { message: id } for a user row, { turn: id } otherwise.
     */
    this.live = [];
    /** Messages and turns an applied snapshot proved durable (only ever grow). */
    this.durableMessages = new Set();
    this.durableTurns = new Set();
    /** `snapshot_seq` of the newest applied snapshot, or null before the first. */
    this.appliedSeq = null;
    this.scrolledUp = false;
    this.reconcileDeferred = false;
    /** Fetches in flight (request ids). */
    this.inFlight = new Set();
    this.nextRequest = 1;
    /** `currentAssistantId`: the live row the turn's text streams into, and its turn. */
    this.currentAssistantId = null;
    this.currentAssistantTurn = null;
    /** Live rows created so far (never goes down): numbers assistant row ids (rule 5). */
    this.liveRowsCreated = 0;
    /** The turn of the last `turn-start` (rule 6), or null before the first. */
    this.liveTurn = null;
    /** Where live rows go (rule 7). */
    this.policy = policy;
    /** Under "db-order": this tab's own messages not yet placed, in send order. */
    this.pending = [];
    /** Under "db-order": the turns whose first event reached the tab (ids, sorted). */
    this.turnsSeen = [];
  }

  /** Handle one input (the protocol's `input` object); return the effects, in order. */
  handle(input) {
    const effects = [];
    switch (input.input) {
      case "user-send": {
        const { message_id: messageId, text } = input;
        if (this.policy === "arrival") this.endSegment();
        else if (this.policy === "db-order") this.pending.push(messageId);
        this.pushLive({ message: messageId }, messageName(messageId), "user", text);
        effects.push({ effect: "post", message_id: messageId, text });
        break;
      }
      case "scroll":
        this.scrolledUp = !input.at_bottom;
        if (input.at_bottom && this.reconcileDeferred) {
          this.reconcileDeferred = false;
          this.reconcile(effects);
        }
        break;
      case "event":
        this.handleEvent(input.event, effects);
        break;
      case "post-response":
        break;
      case "fetch-response":
        if (this.inFlight.delete(input.request_id)) {
          this.applySnapshot(input.snapshot_seq, input.chunks, input.written_turns || []);
        }
        break;
      default:
        throw new Error(`unknown input ${JSON.stringify(input.input)}`);
    }
    return effects;
  }

  /**
   * The store's complete state, canonically (the protocol's `state` digest): every own
   * field, so a field added later is not forgotten. Equal strings mean the store answers
   * every later input the same way.
   */
  digest() {
    return canonicalJson(Object.fromEntries(Object.entries(this)));
  }

  /** What the user sees: `chunks ++ live`, as protocol render rows. */
  render() {
    return this.chunks.concat(this.live.map(liveRow));
  }

  handleEvent(event, effects) {
    switch (event.type) {
      case "text-delta": {
        // Rule 6: a delta without a turn id belongs to the turn of the last turn-start.
        const turn = event.turn_id ?? this.liveTurn ?? 0;
        this.turnEvent(turn);
        if (!this.durableTurns.has(turn)) this.textDelta(turn, event.text);
        break;
      }
      case "tool-call":
        this.turnEvent(event.turn_id);
        this.endSegment();
        if (!this.durableTurns.has(event.turn_id)) {
          this.pushLive({ turn: event.turn_id }, `call-${turnName(event.turn_id)}-${event.call}`, "tool-call", event.text);
        }
        break;
      case "tool-result":
        this.turnEvent(event.turn_id);
        this.endSegment();
        if (!this.durableTurns.has(event.turn_id)) {
          this.pushLive({ turn: event.turn_id }, `result-${turnName(event.turn_id)}-${event.call}`, "tool-result", event.text);
        }
        break;
      case "turn-sealed":
        this.reconcile(effects);
        break;
      case "turn-start":
        this.turnEvent(event.turn_id);
        this.liveTurn = event.turn_id;
        break;
      case "message-consumed":
        if (this.policy === "db-order") this.place(event.message_ids || []);
        break;
      case "message-queued":
      case "status":
        break;
      default:
        throw new Error(`unknown event ${JSON.stringify(event.type)}`);
    }
  }

  /**
   * A new live row: a user row at the bottom; a row of streamed content at the bottom too,
   * except under "db-order", where it goes above the first pending message still shown.
   */
  pushLive(key, id, role, text) {
    const turnId = key.turn; // undefined for a user row: not bound to a turn
    const at = turnId === undefined ? this.live.length : this.contentSlot();
    this.live.splice(at, 0, { id, role, turnId, text, key });
    this.liveRowsCreated++;
  }

  /** Where a new live row of streamed content goes (an index into `live`). */
  contentSlot() {
    if (this.policy !== "db-order" || this.pending.length === 0) return this.live.length;
    const first = this.live.findIndex((r) => r.key.message !== undefined && this.pending.includes(r.key.message));
    return first === -1 ? this.live.length : first;
  }

  /**
   * Under "db-order": the messages `placed` now have their place, and so has every message
   * this tab sent before them (the backend handles a tab's POSTs in order). Their rows stay
   * where they are; if any was pending, the streaming row ends there.
   */
  place(placed) {
    let last = -1;
    this.pending.forEach((m, i) => {
      if (placed.includes(m)) last = i;
    });
    if (last !== -1) {
      this.pending.splice(0, last + 1);
      this.endSegment();
    }
  }

  /**
   * Under "db-order": the first event of a turn places every pending message (each was sent
   * before any of the turn's content reached the tab; the turn's initiator is among them).
   */
  turnEvent(turnId) {
    if (this.policy !== "db-order" || this.turnsSeen.includes(turnId)) return;
    this.turnsSeen.push(turnId);
    this.turnsSeen.sort((a, b) => a - b);
    if (this.pending.length > 0) {
      this.pending = [];
      this.endSegment();
    }
  }

  /** Fetch now, or defer while the user is scrolled up. */
  reconcile(effects) {
    if (this.scrolledUp) {
      this.reconcileDeferred = true;
      return;
    }
    const requestId = this.nextRequest++;
    this.inFlight.add(requestId);
    effects.push({ effect: "fetch", request_id: requestId });
  }

  /** Apply a fetched snapshot: replace the sealed rows, retire the live rows it proves durable. */
  applySnapshot(snapshotSeq, chunks, writtenTurns) {
    if (this.appliedSeq !== null && snapshotSeq < this.appliedSeq) return; // stale
    this.appliedSeq = snapshotSeq;
    for (const c of chunks) {
      for (const m of c.message_ids || []) this.durableMessages.add(m);
    }
    for (const t of writtenTurns) this.durableTurns.add(t);
    this.chunks = chunks.map((c) => ({ from: "sealed", seq: c.seq, role: c.role, turn_id: c.turn_id, text: c.text }));
    this.live = this.live.filter((row) => !this.isDurable(row, chunks));
  }

  /**
   * Whether an applied snapshot proves `row` durable. `chunks` (the snapshot being applied)
   * is unused here: the evidence is the sets above; it is there for variants that judge by
   * the snapshot itself (sim/tests/buggy/store.js).
   */
  isDurable(row, chunks) {
    return row.key.message !== undefined
      ? this.durableMessages.has(row.key.message)
      : this.durableTurns.has(row.key.turn);
  }

  /**
   * A delta grows the turn's current streaming row in place, wherever it sits in `live`;
   * with none (the turn's first text, text after a tool event, the row dropped by a
   * reconcile) it starts a new assistant row, which becomes current.
   */
  textDelta(turnId, text) {
    const current = this.currentAssistantId !== null && this.currentAssistantTurn === turnId
      ? this.live.find((r) => r.id === this.currentAssistantId)
      : undefined;
    if (current !== undefined) {
      current.text += " " + text;
      return;
    }
    // Row ids mirror durable.rs: the number is the live rows created before this one.
    const id = `a-${turnName(turnId)}-${this.liveRowsCreated}`;
    this.pushLive({ turn: turnId }, id, "assistant", text);
    this.currentAssistantId = id;
    this.currentAssistantTurn = turnId;
  }

  /** A tool event (of any turn) ends the current text segment: the next text starts a new row. */
  endSegment() {
    this.currentAssistantId = null;
    this.currentAssistantTurn = null;
  }
}

/** A live row as a protocol render row (`turn_id` omitted while unbound). */
function liveRow(m) {
  return m.turnId === undefined
    ? { from: "live", id: m.id, role: m.role, text: m.text }
    : { from: "live", id: m.id, role: m.role, turn_id: m.turnId, text: m.text };
}

/** A fresh `durable` store, rendering by `policy` (rule 7; "in-place" by default). */
const makeDurable = (policy = "in-place") => new DurableStore(policy);

/** The store variants of this file, by name, and their render policies. */
const DURABLE_VARIANTS = { durable: "in-place", "durable-arrival": "arrival", "durable-db-order": "db-order" };

module.exports = { DurableStore, makeDurable, liveRow, POLICIES, DURABLE_VARIANTS };
