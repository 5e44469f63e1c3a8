import type { ChatMessage, HistoryRow, Part, ToolCall } from "./types";

/**
 * Durable rows → chat messages: consecutive rows of one turn and speaker are one message,
 * which carries the `seq` of its first row (the panel's scroll anchor); an assistant's
 * tool calls and their results are one `tool_calls` part.
 */
export function groupHistory(rows: readonly HistoryRow[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const row of rows) {
    const role = row.role === "user" ? "user" : "assistant";
    let last = messages.at(-1);
    if (last === undefined || last.role !== role || last.turnId !== row.turn_id || role === "user") {
      last = { id: `h-${row.seq}`, role, turnId: row.turn_id, parts: [], seq: row.seq };
      messages.push(last);
    }
    addRow(last.parts, row);
  }
  return messages;
}

function addRow(parts: Part[], row: HistoryRow): void {
  if (row.kind === "text") {
    parts.push({ type: "text", text: row.content });
    return;
  }
  let batch = parts.at(-1);
  if (batch?.type !== "tool_calls") {
    batch = { type: "tool_calls", calls: [] };
    parts.push(batch);
  }
  const calls: ToolCall[] = batch.calls;
  if (row.kind === "tool_call") {
    calls.push({ id: row.call_id ?? "", name: "tool", arguments: row.content });
    return;
  }
  const call = calls.find((c) => c.id === row.call_id && c.result === undefined);
  if (call !== undefined) call.result = row.content;
  else calls.push({ id: row.call_id ?? "", name: "tool", arguments: "", result: row.content });
}
