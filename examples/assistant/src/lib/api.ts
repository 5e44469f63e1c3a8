// The REST API, over the global fetch.
import { API_BASE } from "./config";
import type { HistoryPage, SendRequest, SendResponse } from "./types";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${API_BASE}${path}`, {
    method,
    headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new ApiError(res.status, `${method} ${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

export function fetchHistory(tab: string): Promise<HistoryPage> {
  return call<HistoryPage>("GET", `/tabs/${encodeURIComponent(tab)}/history`);
}

export function postMessage(tab: string, message: SendRequest): Promise<SendResponse> {
  return call<SendResponse>("POST", `/tabs/${encodeURIComponent(tab)}/messages`, message);
}
