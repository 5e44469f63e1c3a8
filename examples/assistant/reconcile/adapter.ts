// How reconcile-sim drives the assistant's conversation store, unmodified: the store's own
// fetch and its page-wide event stream reach the harness. This file declares the backend's
// contract, the routes, the wire format, and the public environment the app reads.
import { defineAdapter } from "reconcile-sim-adapter";
import { ConversationStore } from "$lib/stores/conversation.svelte";

export const modules = {
  "$env/dynamic/public": { env: { PUBLIC_API_BASE: "/api/v1", PUBLIC_STREAM_URL: "wss://assistant.example.com/v1/stream" } },
};

const EVENTS = {
  "turn-start": "turn_started", "text-delta": "text_delta", "tool-call": "tool_call", "tool-result": "tool_result",
  "message-queued": "message_queued", "message-consumed": "message_consumed", status: "agent_status", "turn-sealed": "turn_sealed",
} as const;
const KIND = { user: ["user", "text"], assistant: ["assistant", "text"], "tool-call": ["tool", "tool_call"], "tool-result": ["tool", "tool_result"] } as const;
const turnIds = { encode: (n: number) => `turn_${n}`, decode: (id: unknown) => Number(String(id).replace(/^turn_/, "")) };

export default defineAdapter(
  (harness) => {
    const store = new ConversationStore();
    return {
      boot: () => store.open(),
      send: (text) => store.send(text),
      scroll: (atBottom) => store.setScrolledUp(!atBottom),
      render: () => harness.flatten(store.messages),
      snapshot: () => store.snapshot(),
      teardown: () => store.close(), // the stream is a module singleton: let go of it
    };
  },
  {
    name: "assistant:conversation",
    // One socket per page, in order; the backend names why it drained the queue, sends a
    // queued message's text, and puts the turn on every delta.
    world: { profile: "ordered-socket", consume_reasons: true, queued_texts: true, deltas_without_turn_ids: false },
    network: {
      origin: "https://assistant.example.com",
      socket: "wss://assistant.example.com/v1/stream",
      routes: { "GET /api/v1/tabs/:tab/history": "fetch", "POST /api/v1/tabs/:tab/messages": "post" },
      codec: {
        ids: turnIds,
        toolBatch: { input: "arguments", output: "result" },
        postRequest: (body) => {
          const { content, client_id } = body as { content: string; client_id?: string };
          return { id: client_id, text: content };
        },
        postResponse: (r, id) => (r.outcome === "started" ? { id, status: "started", turn_id: turnIds.encode(r.turn_id) } : { id, status: "queued" }),
        // Frames are an envelope addressed to the tab the store minted at boot (its URLs carry it).
        event: ({ type, turnId, call, text, messageId, messageIds, reason, status }, ctx) => {
          const callId = call === undefined ? undefined : `call_${turnIds.decode(call)}`;
          const data =
            type === "tool-call" ? { turn_id: turnId, call_id: callId, name: "tool", arguments: text }
            : type === "tool-result" ? { turn_id: turnId, call_id: callId, result: text }
            : type === "message-queued" ? { id: messageId, content: text }
            : type === "message-consumed" ? { ids: messageIds, reason }
            : type === "status" ? { state: status }
            : { turn_id: turnId, text };
          return { tab: ctx.params.tab, event: EVENTS[type as keyof typeof EVENTS], data };
        },
        chunk: (c, ids) => {
          const [role, kind] = KIND[c.role];
          const call = c.call === undefined ? {} : { call_id: `call_${c.call}` };
          return { seq: c.seq, turn_id: ids.encode(c.turnId), role, kind, content: c.text, ...call, message_ids: c.messageIds ?? [] };
        },
        history: (page) => ({ rows: page.chunks, turns: page.writtenTurns.map((id) => ({ id, state: "complete" })), cursor: page.snapshotSeq }),
      },
    },
  },
);
