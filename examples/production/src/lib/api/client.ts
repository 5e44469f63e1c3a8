// The REST API, over the global fetch.
import { config } from "../config";
import type { HistoryPage, SendResult } from "../chat/types";

async function request<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(`${config.apiBase}${path}`, {
    ...init,
    headers: { "content-type": "application/json", ...init?.headers },
  });
  if (!res.ok) throw new Error(`${init?.method ?? "GET"} ${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

export const api = {
  history: (tabId: string) => request<HistoryPage>(`/tabs/${encodeURIComponent(tabId)}/rows?limit=${config.historyWindow}`),
  send: (tabId: string, clientMessageId: string, content: string) =>
    request<SendResult>(`/tabs/${encodeURIComponent(tabId)}/messages`, {
      method: "POST",
      body: JSON.stringify({ clientMessageId, content }),
    }),
};
