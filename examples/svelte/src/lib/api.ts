import type { ChunkRow } from "$lib/chat/types";

/** What the tab store needs from the backend (injected, so tests can stub it). */
export interface ChatApi {
  /** POST a message the user sent; the client mints its id. */
  postMessage(tabId: string, message: { id: string; text: string }): Promise<unknown>;
  /** The session's durable chunk history. */
  fetchChunks(tabId: string): Promise<ChunkRow[]>;
}

/** The real API over HTTP. */
export function httpApi(base: string, sessionOf: (tabId: string) => string): ChatApi {
  return {
    async postMessage(tabId, message) {
      const res = await fetch(`${base}/sessions/${sessionOf(tabId)}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(message),
      });
      if (!res.ok) throw new Error(`POST message: ${res.status}`);
      return res.json();
    },
    async fetchChunks(tabId) {
      const res = await fetch(`${base}/sessions/${sessionOf(tabId)}/chunks`);
      if (!res.ok) throw new Error(`GET chunks: ${res.status}`);
      return (await res.json()) as ChunkRow[];
    },
  };
}
