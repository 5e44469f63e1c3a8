import type { ChunkRow, Message, Part } from "./types";

/**
 * Durable rows → messages: consecutive rows of one turn and speaker form a message; an
 * assistant's tool calls and their results form one tool batch part.
 */
export function groupRows(rows: readonly ChunkRow[]): Message[] {
  const messages: Message[] = [];
  for (const row of rows) {
    const role = row.role === "user" ? "user" : "assistant";
    let last = messages.at(-1);
    if (!last || last.role !== role || last.turnId !== row.turnId || role === "user") {
      last = { id: `msg-${row.id}`, role, turnId: row.turnId, parts: [], pending: false };
      messages.push(last);
    }
    addPart(last.parts, row);
  }
  return messages;
}

function addPart(parts: Part[], row: ChunkRow): void {
  if (row.type === "text") {
    parts.push({ type: "text", text: row.data.text ?? "" });
    return;
  }
  let batch = parts.at(-1);
  if (batch?.type !== "tool_batch") {
    batch = { type: "tool_batch", calls: [] };
    parts.push(batch);
  }
  if (row.type === "tool_call") {
    batch.calls.push({ callId: row.data.callId ?? "", input: row.data.input ?? "" });
  } else {
    const call = batch.calls.find((c) => c.callId === row.data.callId && c.output === undefined);
    if (call) call.output = row.data.output ?? "";
    else batch.calls.push({ callId: row.data.callId ?? "", input: "", output: row.data.output ?? "" });
  }
}
