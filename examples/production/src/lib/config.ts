// Runtime configuration, injected by the server into the page as
// <script id="app-config" type="application/json">{…}</script>.

export interface AppConfig {
  /** REST base path, e.g. "/api". */
  apiBase: string;
  /** The backend's event socket. */
  wsUrl: string;
  /** How many chunk rows the history window holds. */
  historyWindow: number;
  /** Socket keep-alive period (ms). */
  heartbeatMs: number;
}

function readConfig(): AppConfig {
  const el = document.getElementById("app-config");
  if (!el?.textContent) throw new Error("app-config missing from the page");
  return JSON.parse(el.textContent) as AppConfig;
}

export const config: AppConfig = readConfig();
