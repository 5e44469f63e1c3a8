// How reconcile-sim drives the app's chat store, unmodified: the store's own fetch and
// WebSocket reach the harness; this file declares the routes, the wire format and a stub
// for the page-injected config.
import { defineAdapter } from "reconcile-sim-adapter";
import { ChatStore } from "$lib/stores/chat.svelte";

export const modules = {
  "$lib/config": { config: { apiBase: "/api", wsUrl: "wss://chat.example.com/ws", historyWindow: 200, heartbeatMs: 25000 } },
};

const TOOL = { "tool-call": ["assistant", "tool_call", "input"], "tool-result": ["tool", "tool_result", "output"] } as const;

export default defineAdapter(
  (harness) => {
    const store = new ChatStore("tab-1");
    return {
      boot: () => store.open(),
      send: (text) => store.send(text),
      scroll: (atBottom) => store.setScrolledUp(!atBottom),
      render: () => harness.flatten(store.messages, { isSealed: (m) => !m.pending }),
      snapshot: () => store.snapshot(),
    };
  },
  {
    name: "production:chat",
    // The backend's contract: one ordered socket per tab; its queue events carry ids only
    // (no text, no reason). Every command takes it from here (`--world` overrides it).
    world: ["ordered-socket", "consume_reasons=false", "queued_texts=false"],
    network: {
      origin: "https://chat.example.com",
      socket: "wss://chat.example.com/ws",
      routes: { "GET /api/tabs/:tab/rows": "fetch", "POST /api/tabs/:tab/messages": "post" },
      codec: {
        ids: "string",
        fields: { type: "kind", call: "callId" },
        eventNames: { "turn-start": "turn.start", "text-delta": "turn.delta", "tool-call": "tool.call", "tool-result": "tool.result",
          "message-queued": "message.queued", "message-consumed": "message.consumed", status: "agent.status", "turn-sealed": "turn.sealed" },
        event: (frame) => ({ ...frame, tabId: "tab-1" }),
        chunk: (c, ids) => {
          const [role, type, field] = c.role === "tool-call" || c.role === "tool-result" ? TOOL[c.role] : [c.role, "text", "text"];
          const data = { [field]: c.text, ...(c.call === undefined ? {} : { callId: ids.encode(c.call) }) };
          return { id: `row-${c.seq}`, seq: c.seq, turnId: ids.encode(c.turnId), role, type, data, clientMessageIds: c.messageIds ?? [] };
        },
        // The inverse of chunk, for the recorder (docs/record.md): a row back as the harness's chunk.
        unchunk: (row) => {
          const r = row as { seq: number; turnId: string; role: string; type: string; data: Record<string, string>; clientMessageIds?: string[] };
          const role = r.type === "tool_call" ? "tool-call" : r.type === "tool_result" ? "tool-result" : (r.role as "user" | "assistant");
          return { seq: r.seq, turnId: r.turnId, role, text: r.data[r.type === "tool_call" ? "input" : r.type === "tool_result" ? "output" : "text"] ?? "", messageIds: r.clientMessageIds ?? [] };
        },
        history: (page) => ({ rows: page.chunks, cursor: page.snapshotSeq }),
      },
    },
  },
);
