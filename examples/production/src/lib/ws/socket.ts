// The app's one WebSocket to the backend: JSON frames, a keep-alive ping, and reconnect
// with backoff when the connection drops. Listeners subscribe per tab.
import { config } from "../config";
import type { ServerFrame } from "../chat/types";

type Listener = (frame: ServerFrame) => void;

export class ChatSocket {
  private ws: WebSocket | null = null;
  private listeners = new Map<string, Set<Listener>>();
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private attempts = 0;
  private closedByUs = false;

  connect(): void {
    this.closedByUs = false;
    const ws = new WebSocket(config.wsUrl);
    this.ws = ws;
    ws.onopen = () => {
      this.attempts = 0;
      this.heartbeat = setInterval(() => ws.send(JSON.stringify({ kind: "ping" })), config.heartbeatMs);
    };
    ws.onmessage = (e) => this.dispatch(JSON.parse(String(e.data)) as ServerFrame);
    ws.onclose = () => {
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.heartbeat = null;
      if (this.closedByUs) return;
      const delay = Math.min(30_000, 500 * 2 ** this.attempts++);
      setTimeout(() => this.connect(), delay);
    };
  }

  close(): void {
    this.closedByUs = true;
    this.ws?.close();
  }

  subscribe(tabId: string, listener: Listener): () => void {
    let set = this.listeners.get(tabId);
    if (!set) this.listeners.set(tabId, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  private dispatch(frame: ServerFrame): void {
    if (frame.kind === "pong") return;
    for (const listener of this.listeners.get(frame.tabId) ?? []) listener(frame);
  }
}

export const socket = new ChatSocket();
