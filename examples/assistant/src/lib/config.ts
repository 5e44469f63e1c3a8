// Where the backend is, from the public runtime environment (SvelteKit's `$env`).
import { env } from "$env/dynamic/public";

export const API_BASE = env.PUBLIC_API_BASE ?? "/api/v1";
export const STREAM_URL = env.PUBLIC_STREAM_URL ?? "/v1/stream";
export const HEARTBEAT_MS = Number(env.PUBLIC_HEARTBEAT_MS ?? 30_000);
