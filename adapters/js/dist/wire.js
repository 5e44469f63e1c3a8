// The exec protocol's JSON values (docs/protocol.md, version 1), as the harness writes them.
// Every object may carry fields not listed here: they must be ignored.
export const PROTOCOL = 1;
export const ROLES = ["user", "assistant", "tool-call", "tool-result"];
