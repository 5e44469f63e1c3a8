// The app's one event stream to the backend: a WebSocket shared by every open
// conversation of the page (a module singleton), JSON frames addressed to a tab, a
// keep-alive ping, and reconnect with backoff when the connection drops.
import { HEARTBEAT_MS, STREAM_URL } from "./config";
import type { StreamFrame } from "./types";

type Handler = (frame: StreamFrame) => void;

class StreamClient {
  private ws: WebSocket | null = null;
  private handlers = new Map<string, Handler>();
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private retries = 0;
  private query = "";

  /** Open the stream (once: later calls while it is open do nothing). */
  connect(tab: string): void {
    this.query = `?tab=${encodeURIComponent(tab)}`;
    if (this.ws !== null) return;
    const ws = new WebSocket(`${STREAM_URL}${this.query}`);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.retries = 0;
      this.heartbeat = setInterval(() => ws.send(JSON.stringify({ event: "ping" })), HEARTBEAT_MS);
    });
    ws.addEventListener("message", (e) => {
      const frame = JSON.parse(String(e.data)) as StreamFrame;
      if (frame.event === "pong") return;
      this.handlers.get(frame.tab)?.(frame);
    });
    ws.addEventListener("close", () => {
      if (this.heartbeat !== null) clearInterval(this.heartbeat);
      this.heartbeat = null;
      if (this.ws === ws) this.ws = null;
      if (this.handlers.size === 0) return;
      const delay = Math.min(30_000, 1000 * 2 ** this.retries++);
      setTimeout(() => {
        const [tab] = this.handlers.keys();
        if (tab !== undefined) this.connect(tab);
      }, delay);
    });
  }

  /** Receive the frames addressed to `tab`; returns the unsubscribe function. */
  subscribe(tab: string, handler: Handler): () => void {
    this.handlers.set(tab, handler);
    return () => {
      if (this.handlers.get(tab) === handler) this.handlers.delete(tab);
    };
  }
}

/** The page's stream, shared by every conversation. */
export const stream = new StreamClient();
