// The backend's shapes, as the REST API and the socket send them.

/** One durable chunk row (`GET /tabs/:tabId/rows`). Ids are strings, as the API sends them. */
export interface ChunkRow {
  id: string;
  seq: number;
  turnId: string;
  role: "user" | "assistant" | "tool";
  type: "text" | "tool_call" | "tool_result";
  data: { text?: string; callId?: string; input?: string; output?: string };
  /** The client ids of the user messages this row persists. */
  clientMessageIds: string[];
}

export interface HistoryPage {
  rows: ChunkRow[];
  cursor: number;
}

export type AgentStatus = "idle" | "running" | "error";

/** Socket frames (`kind` names the event). Every frame names its tab. */
export type ServerFrame = { tabId: string } & (
  | { kind: "turn.start"; turnId: string }
  | { kind: "turn.delta"; turnId?: string; text: string }
  | { kind: "tool.call"; turnId: string; callId: string; text: string }
  | { kind: "tool.result"; turnId: string; callId: string; text: string }
  | { kind: "message.queued"; messageId: string }
  | { kind: "message.consumed"; messageIds: string[] }
  | { kind: "agent.status"; status: AgentStatus }
  | { kind: "turn.sealed"; turnId: string }
  | { kind: "pong" }
);

export interface SendResult {
  messageId: string;
  status: "started" | "queued";
  turnId?: string;
}

/** What the chat panel renders: messages with parts. */
export type Part =
  | { type: "text"; text: string }
  | { type: "tool_batch"; calls: { callId: string; input: string; output?: string }[] };

export interface Message {
  id: string;
  role: "user" | "assistant";
  turnId: string | null;
  parts: Part[];
  /** Not yet in the durable history (optimistic, queued, streaming). */
  pending: boolean;
}
