// One chat tab: the durable history (`rows`, from the REST API), the transient `live`
// messages of the turn in flight and of optimistic and queued sends, and the reconcile
// that swaps a sealed turn's live messages for its durable rows.
//
// The reconcile follows the design note's current code (bug fixes A–D applied): live
// messages survive a reconcile when they belong to a newer turn still streaming (A), or
// are user messages not yet bound to a turn (B).
import { api } from "$lib/api/client";
import { groupRows } from "$lib/chat/group";
import type { AgentStatus, ChunkRow, Message, Part, ServerFrame } from "$lib/chat/types";
import { ChatSocket } from "$lib/ws/socket";

const QUEUED = "queued:";

export class ChatStore {
  rows = $state<ChunkRow[]>([]);
  live = $state<Message[]>([]);
  /** Client ids of messages the backend queued and has not consumed yet. */
  queued = $state<string[]>([]);
  liveTurnId = $state<string | null>(null);
  status = $state<AgentStatus>("running");
  scrolledUp = $state(false);
  /** What the chat panel shows. */
  messages = $derived<Message[]>([...groupRows(this.rows), ...this.live]);

  private streamId: string | null = null;
  private deferredTurn: string | null = null;

  constructor(
    readonly tabId: string,
    private readonly socket = new ChatSocket(),
  ) {}

  async open(): Promise<void> {
    this.socket.subscribe(this.tabId, (frame) => this.onFrame(frame));
    this.socket.connect();
    this.rows = (await api.history(this.tabId)).rows;
  }

  async send(text: string): Promise<void> {
    const id = crypto.randomUUID();
    const busy = this.status === "running";
    this.live.push({ id: busy ? QUEUED + id : id, role: "user", turnId: null, parts: [{ type: "text", text }], pending: true });
    if (busy) this.queued.push(id);
    await api.send(this.tabId, id, text);
  }

  setScrolledUp(up: boolean): void {
    this.scrolledUp = up;
    if (!up && this.deferredTurn !== null) {
      const turn = this.deferredTurn;
      this.deferredTurn = null;
      this.reconcile(turn);
    }
  }

  private onFrame(frame: ServerFrame): void {
    switch (frame.kind) {
      case "turn.start":
        this.liveTurnId = frame.turnId;
        this.bindInitiator(frame.turnId);
        break;
      case "turn.delta":
        this.appendText(frame.turnId ?? this.liveTurnId, frame.text);
        break;
      case "tool.call":
        this.batchOf(frame.turnId).calls.push({ callId: frame.callId, input: frame.text });
        break;
      case "tool.result": {
        const call = this.batchOf(frame.turnId).calls.find((c) => c.callId === frame.callId);
        if (call) call.output = frame.text;
        break;
      }
      case "message.queued": {
        const m = this.live.find((x) => x.id === frame.messageId);
        if (m) m.id = QUEUED + frame.messageId;
        if (m && !this.queued.includes(frame.messageId)) this.queued.push(frame.messageId);
        break;
      }
      case "message.consumed":
        for (const id of frame.messageIds) {
          this.queued = this.queued.filter((q) => q !== id);
          const m = this.live.find((x) => x.id === QUEUED + id);
          if (m) Object.assign(m, { id, turnId: this.liveTurnId }); // persisted shape, bound to the running turn (D)
        }
        break;
      case "agent.status":
        this.status = frame.status;
        break;
      case "turn.sealed":
        this.reconcile(frame.turnId);
        break;
    }
  }

  /** The optimistic message that started this turn: the latest unbound, unqueued user message (C). */
  private bindInitiator(turnId: string): void {
    for (let i = this.live.length - 1; i >= 0; i--) {
      const m = this.live[i];
      if (m.role !== "user") break;
      if (m.turnId === null && !m.id.startsWith(QUEUED)) {
        m.turnId = turnId;
        break;
      }
    }
  }

  /** The live assistant message of this turn, started if the last one belongs to another turn. */
  private streaming(turnId: string | null): Message {
    let m = this.live.find((x) => x.id === this.streamId);
    if (!m || m.turnId !== turnId) {
      m = { id: `stream-${crypto.randomUUID()}`, role: "assistant", turnId, parts: [], pending: true };
      this.live.push(m);
      m = this.live[this.live.length - 1];
      this.streamId = m.id;
    }
    return m;
  }

  private appendText(turnId: string | null, text: string): void {
    const m = this.streaming(turnId);
    const last = m.parts.at(-1);
    if (last?.type === "text") last.text += text;
    else m.parts.push({ type: "text", text });
  }

  private batchOf(turnId: string): Extract<Part, { type: "tool_batch" }> {
    const m = this.streaming(turnId);
    const last = m.parts.at(-1);
    if (last?.type === "tool_batch") return last;
    m.parts.push({ type: "tool_batch", calls: [] });
    return m.parts.at(-1) as Extract<Part, { type: "tool_batch" }>;
  }

  /** Reload the history once the user is at the bottom (no jump while reading). */
  private reconcile(turnId: string): void {
    if (this.scrolledUp) {
      this.deferredTurn = turnId;
      return;
    }
    void this.reloadHistory(turnId);
  }

  private async reloadHistory(sealedTurnId: string): Promise<void> {
    const page = await api.history(this.tabId);
    const newer = this.liveTurnId !== null && this.liveTurnId !== sealedTurnId ? this.liveTurnId : null;
    this.rows = page.rows;
    this.live = this.live.filter((m) => (newer !== null && m.turnId === newer) || (m.role === "user" && m.turnId === null));
  }

  /** Everything the store holds, as plain data (debugging, state digests). */
  snapshot() {
    return $state.snapshot({
      rows: this.rows,
      live: this.live,
      queued: this.queued,
      liveTurnId: this.liveTurnId,
      status: this.status,
      scrolledUp: this.scrolledUp,
      streamId: this.streamId,
      deferredTurn: this.deferredTurn,
    });
  }
}
