// The chat's wire and view types.

export type Role = "user" | "assistant" | "tool-call" | "tool-result";
export type AgentStatus = "idle" | "running" | "error";

/** A durable row of the chat history, as `GET /chunks` returns it. */
export interface ChunkRow {
  seq: number;
  turnId: number;
  role: Role;
  text: string;
}

/** A piece of a message grouped from chunk rows (each keeps the `seq` of its row). */
export interface MessagePart {
  kind: "text" | "tool-call" | "tool-result";
  seq: number;
  text: string;
}

/** What the chat panel renders: a grouped sealed message (with parts) or a live row. */
export interface ChatMessage {
  id: string;
  role: Role;
  /** Set once the row is bound to a turn; undefined while optimistic/pending. */
  turnId?: number;
  text: string;
  parts?: MessagePart[];
}

/** The WebSocket events of the agent backend. */
export type ServerEvent =
  | { type: "turn-start"; turnId: number }
  /** `turnId` is absent on backends that tag only `turn-start` (the stream is the live turn's). */
  | { type: "text-delta"; turnId?: number; text: string }
  | { type: "tool-call"; turnId: number; call: number; text: string }
  | { type: "tool-result"; turnId: number; call: number; text: string }
  | { type: "message-queued"; messageId: string }
  | { type: "message-consumed"; messageIds: string[] }
  | { type: "status"; status: AgentStatus }
  | { type: "turn-sealed"; turnId: number };
