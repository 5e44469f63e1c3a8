// A plain-JavaScript model of the note's frontend tab store (`tabs.svelte.ts`), written
// with the note's field names (`chunks`, `live`, `queuedMessages`, `liveTurnId`,
// `agentStatus`, `pendingReconcileTabs`, `preserveTurnId`, `keptLive`) so that it can be
// read side by side with the real store.
//
// It mirrors the Rust reference (`sim/src/store/note/tab.rs` plus one policy file per variant)
// exactly: the differential test (`sim/tests/exec.rs`) drives both with the same steps
// and asserts identical effects and renders after every step. Every modelling choice is
// the Rust file's; they are listed in `docs/model.md`.
//
// Wire values (see docs/protocol.md): message and turn ids are numbers (`3` is `m3` /
// `t3`), roles are "user" | "assistant" | "tool-call" | "tool-result".

"use strict";

const { canonicalJson } = require("./protocol");

const QUEUED_PREFIX = "queued-";

/** `m3` for message 3. */
const messageName = (id) => `m${id}`;
/** `t3` for turn 3. */
const turnName = (id) => `t${id}`;

/** The message id of a `queued-m<N>` row id, or undefined. */
function queuedMessageId(row) {
  const match = /^queued-m(\d+)$/.exec(row.id);
  return match ? Number(match[1]) : undefined;
}

const isQueuedRow = (row) => row.id.startsWith(QUEUED_PREFIX);

// --- the three places the note's variants differ -------------------------------------

/** Pre-C backfill: tag every trailing untagged user row. */
function backfillEveryTrailing(live, turnId) {
  for (let i = live.length - 1; i >= 0; i--) {
    const m = live[i];
    if (m.role !== "user") break;
    if (m.turnId === undefined) m.turnId = turnId;
  }
}

/** Bug C fix: skip `queued-` rows, tag only the latest untagged initiator, then stop. */
function backfillLatestInitiator(live, turnId) {
  for (let i = live.length - 1; i >= 0; i--) {
    const m = live[i];
    if (m.role !== "user") break;
    if (m.turnId === undefined && !isQueuedRow(m)) {
      m.turnId = turnId;
      break;
    }
  }
}

/** Pre-D consumed handler: strip the `queued-` prefix to a plain untagged row. */
function consumedStripPrefix(m, id) {
  m.id = messageName(id);
}

/** Bug D fix: strip the prefix and bind the row to `liveTurnId`. */
function consumedBindLiveTurn(m, id, liveTurnId) {
  consumedStripPrefix(m, id);
  m.turnId = liveTurnId === null ? undefined : liveTurnId;
}

const isPreserved = (m, preserveTurnId) =>
  preserveTurnId !== null && m.turnId === preserveTurnId;

/** The A+B keep filter. */
const keepPreservedOrUntaggedUser = (m, preserveTurnId) =>
  isPreserved(m, preserveTurnId) || (m.turnId === undefined && m.role === "user");

/** Each variant: { backfill, onConsumed, keep(m, preserveTurnId, queuedMessages) }. */
const POLICIES = {
  naive: {
    backfill: backfillEveryTrailing,
    onConsumed: (m, id) => consumedStripPrefix(m, id),
    keep: () => false,
  },
  "fix-a": {
    backfill: backfillEveryTrailing,
    onConsumed: (m, id) => consumedStripPrefix(m, id),
    keep: (m, preserveTurnId) => isPreserved(m, preserveTurnId),
  },
  "fix-ab": {
    backfill: backfillEveryTrailing,
    onConsumed: (m, id) => consumedStripPrefix(m, id),
    keep: keepPreservedOrUntaggedUser,
  },
  "fix-abc": {
    backfill: backfillLatestInitiator,
    onConsumed: (m, id) => consumedStripPrefix(m, id),
    keep: keepPreservedOrUntaggedUser,
  },
  // The note's code today.
  current: {
    backfill: backfillLatestInitiator,
    onConsumed: consumedBindLiveTurn,
    keep: keepPreservedOrUntaggedUser,
  },
  // The note's recommended fix: keep iff preserved turn or still a pending queued message.
  membership: {
    backfill: backfillLatestInitiator,
    onConsumed: consumedBindLiveTurn,
    keep: (m, preserveTurnId, queuedMessages) => {
      const preserved = isPreserved(m, preserveTurnId);
      const id = isQueuedRow(m) ? queuedMessageId(m) : undefined;
      const pendingQueued = id !== undefined && queuedMessages.includes(id);
      return preserved || pendingQueued;
    },
  },
  // Deliberately wrong: keeps every live row.
  canary: {
    backfill: backfillLatestInitiator,
    onConsumed: consumedBindLiveTurn,
    keep: () => true,
  },
};

/** This tab's key in `pendingReconcileTabs` (one store instance is one tab). */
const TAB = "tab";

class TabStore {
  constructor(policy, variant) {
    this.policy = policy;
    /** The variant's name: the policy, for `digest()`. */
    this.variant = variant;
    /** SEALED, durable history: ChunkRow[] ({ seq, turn_id, role, text }). */
    this.chunks = [];
    /** TRANSIENT rows: { id, role, turnId (undefined until bound), text }. */
    this.live = [];
    /** Ids of messages this tab sent that are still awaiting consumption. */
    this.queuedMessages = [];
    /** The in-flight turn, or null. */
    this.liveTurnId = null;
    /** "A freshly-created tab defaults to agentStatus: running." */
    this.agentStatus = "running";
    this.scrolledUp = false;
    /** Deferred reconciles: tab -> sealed turn id (the latest deferred turn wins). */
    this.pendingReconcileTabs = new Map();
    /** Fetches in flight: request id -> the sealed turn each one reconciles. */
    this.inFlight = new Map();
    this.nextRequest = 1;
    /** `currentAssistantId`: the live row the in-flight turn streams into, and its turn. */
    this.currentAssistantId = null;
    this.currentAssistantTurn = null;
    /** Live rows created so far (never goes down): numbers assistant row ids, as tab.rs. */
    this.liveRowsCreated = 0;
  }

  /** Add a row to `live`, counting it (assistant row ids are numbered by that count). */
  pushLive(row) {
    this.live.push(row);
    this.liveRowsCreated++;
  }

  /** Handle one input (the protocol's `input` object); return the effects, in order. */
  handle(input) {
    const effects = [];
    switch (input.input) {
      case "user-send": {
        const { message_id: messageId, text } = input;
        if (this.agentStatus === "running") {
          this.pushLive({ id: QUEUED_PREFIX + messageName(messageId), role: "user", turnId: undefined, text });
          this.queuedMessages.push(messageId);
        } else {
          this.pushLive({ id: messageName(messageId), role: "user", turnId: undefined, text });
        }
        effects.push({ effect: "post", message_id: messageId, text });
        break;
      }
      case "scroll":
        this.scrolledUp = !input.at_bottom;
        if (input.at_bottom && this.pendingReconcileTabs.has(TAB)) {
          const turnId = this.pendingReconcileTabs.get(TAB);
          this.pendingReconcileTabs.delete(TAB);
          this.reconcileSealedTurn(turnId, effects);
        }
        break;
      case "event":
        this.handleEvent(input.event, effects);
        break;
      case "post-response":
        break; // none of the note's stores use it
      case "fetch-response":
        this.reloadChunksFromApi(input.request_id, input.chunks);
        break;
      default:
        throw new Error(`unknown input ${JSON.stringify(input.input)}`);
    }
    return effects;
  }

  /**
   * The store's complete state, canonically (the protocol's `state` digest): every own
   * field but the policy (named by `variant`), so a field added later is not forgotten.
   * Equal strings mean the store answers every later input the same way.
   */
  digest() {
    const state = {};
    for (const [key, value] of Object.entries(this)) if (key !== "policy") state[key] = value;
    return canonicalJson(state);
  }

  /** What the user sees: `groupRowsToMessages(chunks) ++ live`, as protocol render rows. */
  render() {
    const rows = this.chunks.map((c) => ({ from: "sealed", seq: c.seq, role: c.role, turn_id: c.turn_id, text: c.text }));
    for (const m of this.live) {
      rows.push(m.turnId === undefined
        ? { from: "live", id: m.id, role: m.role, text: m.text }
        : { from: "live", id: m.id, role: m.role, turn_id: m.turnId, text: m.text });
    }
    return rows;
  }

  handleEvent(event, effects) {
    switch (event.type) {
      case "turn-start":
        this.liveTurnId = event.turn_id;
        this.policy.backfill(this.live, event.turn_id);
        break;
      case "text-delta": {
        // A delta without a turn id (beyond the note) is the turn the tab believes is
        // streaming: `liveTurnId`.
        const turn = event.turn_id ?? this.liveTurnId ?? undefined;
        // `currentAssistantId`: the turn's text grows its streaming row in place, wherever
        // it sits in live; with none (first text, after a tool event, or dropped by a
        // reconcile) a new assistant row starts at the end and becomes current.
        const current = this.currentAssistantId !== null && this.currentAssistantTurn === turn
          ? this.live.find((r) => r.id === this.currentAssistantId)
          : undefined;
        if (current !== undefined) {
          current.text += " " + event.text;
        } else {
          // Row ids mirror tab.rs: the number is the live rows created before this one (the
          // current row count went down at a reconcile and reused ids).
          const id = `a-${turn === undefined ? "-" : turnName(turn)}-${this.liveRowsCreated}`;
          this.pushLive({ id, role: "assistant", turnId: turn, text: event.text });
          this.currentAssistantId = id;
          this.currentAssistantTurn = turn;
        }
        break;
      }
      case "tool-call":
        this.endSegment();
        this.pushLive({ id: `call-${turnName(event.turn_id)}-${event.call}`, role: "tool-call", turnId: event.turn_id, text: event.text });
        break;
      case "tool-result":
        this.endSegment();
        this.pushLive({ id: `result-${turnName(event.turn_id)}-${event.call}`, role: "tool-result", turnId: event.turn_id, text: event.text });
        break;
      case "message-queued": {
        const m = this.live.find((r) => r.id === messageName(event.message_id));
        if (m !== undefined) {
          m.id = QUEUED_PREFIX + messageName(event.message_id);
          if (!this.queuedMessages.includes(event.message_id)) this.queuedMessages.push(event.message_id);
        }
        break;
      }
      case "message-consumed":
        for (const id of event.message_ids) {
          this.queuedMessages = this.queuedMessages.filter((q) => q !== id);
          const m = this.live.find((r) => r.id === QUEUED_PREFIX + messageName(id));
          if (m !== undefined) this.policy.onConsumed(m, id, this.liveTurnId);
        }
        break;
      case "status":
        this.agentStatus = event.status;
        break;
      case "turn-sealed":
        this.reconcileSealedTurn(event.turn_id, effects);
        break;
      default:
        throw new Error(`unknown event ${JSON.stringify(event.type)}`);
    }
  }

  /** A tool event (of any turn) ends the current text segment: the next text starts a new row. */
  endSegment() {
    this.currentAssistantId = null;
    this.currentAssistantTurn = null;
  }

  /** `reconcileSealedTurn`: fetch now, or defer while the user is scrolled up. */
  reconcileSealedTurn(turnId, effects) {
    if (this.scrolledUp) {
      this.pendingReconcileTabs.set(TAB, turnId);
      return;
    }
    const requestId = this.nextRequest++;
    this.inFlight.set(requestId, turnId);
    effects.push({ effect: "fetch", request_id: requestId });
  }

  /** The second half of `reloadChunksFromApi`: replace chunks, filter live. */
  reloadChunksFromApi(requestId, chunks) {
    if (!this.inFlight.has(requestId)) return; // not ours
    const sealedTurnId = this.inFlight.get(requestId);
    this.inFlight.delete(requestId);
    const preserveTurnId = this.liveTurnId !== null && this.liveTurnId !== sealedTurnId ? this.liveTurnId : null;
    this.chunks = chunks.map((c) => ({ seq: c.seq, turn_id: c.turn_id, role: c.role, text: c.text }));
    const keptLive = this.live.filter((m) => this.policy.keep(m, preserveTurnId, this.queuedMessages));
    this.live = keptLive;
  }
}

/** The variant names this adapter implements. */
const VARIANTS = Object.keys(POLICIES);

/** A fresh store of `variant`, or undefined for an unknown name. */
function makeStore(variant) {
  const policy = POLICIES[variant];
  return policy === undefined ? undefined : new TabStore(policy, variant);
}

module.exports = { TabStore, makeStore, VARIANTS };
