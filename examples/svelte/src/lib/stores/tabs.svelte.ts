// The chat tabs store: per tab, the sealed durable history (`chunks`), the transient
// `live` rows of the in-flight turn and of optimistic/queued user messages, and the
// reconcile that folds a sealed turn's live rows into its durable chunks.
//
// This is the design note's store ("The Queue / Interrupt / Reconcile Path Is an
// Edge-Case Magnet") as its code stands today, bug fixes A–D applied, plus the note's
// recommended keep rule behind `keepRule: "membership"`.

import type { ChatApi } from "$lib/api";
import { groupRowsToMessages } from "$lib/chat/group";
import type { AgentStatus, ChatMessage, ChunkRow, ServerEvent } from "$lib/chat/types";

/**
 * Which live rows survive a reconcile:
 * - `current`: rows of a newer in-flight turn (bug A), and untagged user rows (bug B);
 * - `membership` (the note's recommended fix): rows of a newer in-flight turn, and rows
 *   of messages still pending in `queuedMessages`. Everything else is dropped.
 */
export type KeepRule = "current" | "membership";

/** A message this tab sent while the agent was busy, awaiting consumption. */
export interface QueuedMessage {
  queueId: string;
  text: string;
}

/** A still-pending queued row has id `queued-<queueId>`. */
const QUEUED_PREFIX = "queued-";
const isQueuedRow = (m: ChatMessage) => m.id.startsWith(QUEUED_PREFIX);

export class TabState {
  /** SEALED, durable history (real DB `seq`). Source of truth. */
  chunks = $state<ChunkRow[]>([]);
  /** TRANSIENT rows: the in-flight turn, optimistic and queued user rows. */
  live = $state<ChatMessage[]>([]);
  queuedMessages = $state<QueuedMessage[]>([]);
  /** The in-flight turn. */
  liveTurnId = $state<number | null>(null);
  /** The assistant row the in-flight turn is streaming into. */
  currentAssistantId = $state<string | null>(null);
  /** A fresh tab does not know better than "running". */
  agentStatus = $state<AgentStatus>("running");
  scrolledUp = $state(false);
  /** What the chat panel shows. */
  renderGroups = $derived<ChatMessage[]>([...groupRowsToMessages(this.chunks), ...this.live]);

  constructor(readonly id: string) {}
}

export class TabsStore {
  tabs = $state<Record<string, TabState>>({});
  /** Reconciles deferred while the user is scrolled up: tab → sealed turn (the latest wins). */
  pendingReconcileTabs = new Map<string, number>();

  constructor(
    private readonly api: ChatApi,
    private readonly keepRule: KeepRule = "current",
  ) {}

  openTab(tabId: string, { loadHistory = true } = {}): TabState {
    const tab = new TabState(tabId);
    this.tabs[tabId] = tab;
    if (loadHistory) void this.loadHistory(tabId);
    return tab;
  }

  private async loadHistory(tabId: string): Promise<void> {
    const rows = await this.api.fetchChunks(tabId);
    const tab = this.tabs[tabId];
    if (tab) tab.chunks = rows;
  }

  async send(tabId: string, text: string): Promise<void> {
    const tab = this.tabs[tabId];
    if (!tab) return;
    const id = crypto.randomUUID();
    if (tab.agentStatus === "running") {
      tab.live.push({ id: QUEUED_PREFIX + id, role: "user", text });
      tab.queuedMessages.push({ queueId: id, text });
    } else {
      tab.live.push({ id, role: "user", text });
    }
    await this.api.postMessage(tabId, { id, text });
  }

  setScrolledUp(tabId: string, scrolledUp: boolean): void {
    const tab = this.tabs[tabId];
    if (!tab) return;
    tab.scrolledUp = scrolledUp;
    const pending = this.pendingReconcileTabs.get(tabId);
    if (!scrolledUp && pending !== undefined) {
      this.pendingReconcileTabs.delete(tabId);
      this.reconcileSealedTurn(tabId, pending);
    }
  }

  handleEvent(tabId: string, event: ServerEvent): void {
    const tab = this.tabs[tabId];
    if (!tab) return;
    switch (event.type) {
      case "turn-start": {
        tab.liveTurnId = event.turnId;
        // Bind the optimistic initiator: the latest untagged non-queued user row (bug C).
        for (let i = tab.live.length - 1; i >= 0; i--) {
          const m = tab.live[i];
          if (m.role !== "user") break;
          if (m.turnId === undefined && !isQueuedRow(m)) {
            m.turnId = event.turnId;
            break;
          }
        }
        break;
      }
      case "text-delta": {
        // A delta without a turn id belongs to the turn this tab saw start.
        const turnId = event.turnId ?? tab.liveTurnId ?? undefined;
        const current = tab.live.find((m) => m.id === tab.currentAssistantId);
        if (current && current.turnId === turnId) {
          current.text += event.text;
        } else {
          const id = crypto.randomUUID();
          tab.live.push({ id, role: "assistant", turnId, text: event.text });
          tab.currentAssistantId = id;
        }
        break;
      }
      case "tool-call":
      case "tool-result": {
        tab.currentAssistantId = null; // the next delta starts a new assistant row
        const kind = event.type === "tool-call" ? "call" : "result";
        tab.live.push({ id: `${kind}-t${event.turnId}-${event.call}`, role: event.type, turnId: event.turnId, text: event.text });
        break;
      }
      case "message-queued": {
        const m = tab.live.find((r) => r.id === event.messageId);
        if (m) {
          m.id = QUEUED_PREFIX + event.messageId;
          if (!tab.queuedMessages.some((q) => q.queueId === event.messageId)) {
            tab.queuedMessages.push({ queueId: event.messageId, text: m.text });
          }
        }
        break;
      }
      case "message-consumed": {
        for (const id of event.messageIds) {
          tab.queuedMessages = tab.queuedMessages.filter((q) => q.queueId !== id);
          const m = tab.live.find((r) => r.id === QUEUED_PREFIX + id);
          if (m) {
            // Collapse to the persisted shape, bound to the running turn (bug D).
            m.id = id;
            m.turnId = tab.liveTurnId ?? undefined;
          }
        }
        break;
      }
      case "status":
        tab.agentStatus = event.status;
        break;
      case "turn-sealed":
        this.reconcileSealedTurn(tabId, event.turnId);
        break;
    }
  }

  /** Fetch the sealed turn's chunks now, or once the user is back at the bottom. */
  reconcileSealedTurn(tabId: string, turnId: number): void {
    const tab = this.tabs[tabId];
    if (!tab) return;
    if (tab.scrolledUp) {
      this.pendingReconcileTabs.set(tabId, turnId);
      return;
    }
    void this.reloadChunksFromApi(tabId, turnId);
  }

  async reloadChunksFromApi(tabId: string, sealedTurnId: number): Promise<void> {
    const rows = await this.api.fetchChunks(tabId);
    const tab = this.tabs[tabId];
    if (!tab) return;
    // A newer turn still streaming must not be touched (bug A).
    const preserveTurnId = tab.liveTurnId !== null && tab.liveTurnId !== sealedTurnId ? tab.liveTurnId : null;
    tab.chunks = rows;
    const keptLive = tab.live.filter((m) => this.keep(tab, m, preserveTurnId));
    tab.live = keptLive;
  }

  private keep(tab: TabState, m: ChatMessage, preserveTurnId: number | null): boolean {
    if (preserveTurnId !== null && m.turnId === preserveTurnId) return true;
    if (this.keepRule === "membership") {
      return isQueuedRow(m) && tab.queuedMessages.some((q) => QUEUED_PREFIX + q.queueId === m.id);
    }
    return m.turnId === undefined && m.role === "user"; // optimistic/queued, not yet sealed (bug B)
  }

  /** Everything the store holds, as plain data (debugging, state digests). */
  snapshot() {
    return $state.snapshot({
      tabs: Object.values(this.tabs).map((t) => ({
        id: t.id,
        chunks: t.chunks,
        live: t.live,
        queuedMessages: t.queuedMessages,
        liveTurnId: t.liveTurnId,
        currentAssistantId: t.currentAssistantId,
        agentStatus: t.agentStatus,
        scrolledUp: t.scrolledUp,
      })),
      pendingReconcileTabs: [...this.pendingReconcileTabs],
    });
  }
}
