// How reconcile-sim drives src/lib/stores/tabs.svelte.ts: one store with one tab per run.
// Args after `--`: `membership` selects the note's recommended keep rule; `no-history`
// opens the tab without its history fetch.
import { defineAdapter, flattenMessages } from "reconcile-sim-adapter";
import { TabsStore } from "$lib/stores/tabs.svelte";

const TAB = "tab-1";

export default defineAdapter((harness) => {
  const store = new TabsStore(
    {
      postMessage: (_tabId, message) => harness.post(message.id, message.text),
      fetchChunks: async () => (await harness.fetch()).chunks,
    },
    harness.args.includes("membership") ? "membership" : "current",
  );
  const tab = store.openTab(TAB, { loadHistory: !harness.args.includes("no-history") });
  return {
    send: (text) => store.send(TAB, text),
    scroll: (atBottom) => store.setScrolledUp(TAB, !atBottom),
    event: (event) => store.handleEvent(TAB, event),
    render: () => flattenMessages(tab.renderGroups),
    snapshot: () => store.snapshot(),
  };
});
