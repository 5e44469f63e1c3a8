// The assistant backend's shapes, as its REST API and event stream send them.

export type AgentState = "idle" | "running" | "error";

/** One durable row of a conversation (`GET /tabs/:tab/history`). Turn ids are strings (`turn_12`). */
export interface HistoryRow {
  seq: number;
  turn_id: string;
  role: "user" | "assistant" | "tool";
  kind: "text" | "tool_call" | "tool_result";
  content: string;
  /** For tool rows: which call of the turn (`call_2`). */
  call_id?: string;
  /** The ids of the user messages this row persists (a user row, or a tool result that took in an interrupt). */
  message_ids: string[];
}

export interface HistoryPage {
  rows: HistoryRow[];
  /** Turns whose every row is in `rows` (written to the end). */
  turns: { id: string; state: "complete" }[];
  /** The last seq the page was read up to. */
  cursor: number;
}

/** `POST /tabs/:tab/messages`: `client_id` is optional; without it the server mints the id. */
export interface SendRequest {
  content: string;
  client_id?: string;
}

export interface SendResponse {
  id: string;
  status: "started" | "queued";
  turn_id?: string;
}

/** Event stream frames: an envelope naming the tab, the event and its data. */
export type StreamEvent =
  | { event: "turn_started"; data: { turn_id: string } }
  | { event: "text_delta"; data: { turn_id: string; text: string } }
  | { event: "tool_call"; data: { turn_id: string; call_id: string; name: string; arguments: string } }
  | { event: "tool_result"; data: { turn_id: string; call_id: string; result: string } }
  | { event: "message_queued"; data: { id: string; content?: string } }
  | { event: "message_consumed"; data: { ids: string[]; reason?: "interrupt" | "trailing" | "continuation" } }
  | { event: "agent_status"; data: { state: AgentState } }
  | { event: "turn_sealed"; data: { turn_id: string } }
  | { event: "pong"; data: Record<string, never> };

export type StreamFrame = { tab: string } & StreamEvent;

/** A tool call as the chat panel shows it. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
  result?: string;
}

export type Part = { type: "text"; text: string } | { type: "tool_calls"; calls: ToolCall[] };

/** What the chat panel renders: messages with parts. A message from the history has the `seq` of its first row. */
export interface ChatMessage {
  id: string;
  role: "user" | "assistant";
  turnId: string | null;
  parts: Part[];
  seq?: number;
}
