import type { ChatMessage, ChunkRow } from "./types";

/**
 * Merge durable chunk rows into the messages the chat panel shows: a user row is its own
 * message; consecutive assistant, tool-call and tool-result rows of one turn become one
 * assistant message with a part per row.
 */
export function groupRowsToMessages(rows: readonly ChunkRow[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let assistant: ChatMessage | null = null;
  for (const row of rows) {
    if (row.role === "user") {
      messages.push({
        id: `chunk-${row.seq}`,
        role: "user",
        turnId: row.turnId,
        text: row.text,
        parts: [{ kind: "text", seq: row.seq, text: row.text }],
      });
      assistant = null;
      continue;
    }
    if (assistant === null || assistant.turnId !== row.turnId) {
      assistant = { id: `chunk-${row.seq}`, role: "assistant", turnId: row.turnId, text: "", parts: [] };
      messages.push(assistant);
    }
    const kind = row.role === "assistant" ? "text" : row.role;
    assistant.parts!.push({ kind, seq: row.seq, text: row.text });
    if (kind === "text") assistant.text += row.text;
  }
  return messages;
}
