// Drive an adapter process over the exec protocol, as the harness does.
import { spawn } from "node:child_process";
import { after } from "node:test";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

export const here = dirname(fileURLToPath(import.meta.url));
export const fixture = (...p) => join(here, "fixtures", ...p);
export const CLI = join(here, "..", "dist", "cli.cjs");

/** Every adapter process started, so that a test failing before its close() does not keep the run waiting. */
const started = new Set();
after(() => {
  for (const proc of started) if (proc.exitCode === null && proc.signalCode === null) proc.kill();
});

export class Adapter {
  /** Start `node ARGS…`; answers are matched to requests by order. */
  constructor(args, { cwd, env } = {}) {
    this.proc = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
    started.add(this.proc);
    this.stdout = "";
    this.stderr = "";
    this.lines = [];
    this.waiters = [];
    this.nextId = 1;
    this.proc.stdout.setEncoding("utf8");
    this.proc.stderr.setEncoding("utf8");
    this.proc.stdout.on("data", (d) => {
      this.stdout += d;
      let nl;
      while ((nl = this.stdout.indexOf("\n")) !== -1) {
        const line = this.stdout.slice(0, nl);
        this.stdout = this.stdout.slice(nl + 1);
        this.lines.push(line);
        this.flush();
      }
    });
    this.proc.stderr.on("data", (d) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.proc.on("exit", (code) => resolve(code)));
  }

  flush() {
    while (this.waiters.length > 0 && this.lines.length > 0) this.waiters.shift()(this.lines.shift());
  }

  /** The next answer line, raw. */
  line() {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer in 20 s; stderr:\n${this.stderr}`)), 20000);
      this.waiters.push((l) => {
        clearTimeout(timer);
        resolve(l);
      });
      this.flush();
    });
  }

  /** Write raw text to stdin. */
  write(text) {
    this.proc.stdin.write(text);
  }

  /** Send one request (its id is assigned here unless given) and return the parsed answer. */
  async request(body) {
    const msg = { ...body, id: body.id ?? this.nextId++ };
    this.write(JSON.stringify(msg) + "\n");
    return JSON.parse(await this.line());
  }

  hello() {
    return this.request({ type: "hello", protocol: 1 });
  }
  reset() {
    return this.request({ type: "reset" });
  }
  input(input) {
    return this.request({ type: "input", input });
  }
  event(event) {
    return this.input({ input: "event", event });
  }
  state() {
    return this.request({ type: "state" });
  }

  async close() {
    this.proc.stdin.end();
    return this.exited;
  }
}

/** A plain JS mapping file served with `serve()` (no bundling). */
export async function jsAdapter(name, args = [], opts = {}) {
  const a = new Adapter([fixture(name), ...args], opts);
  const hello = await a.hello();
  if (hello.type !== "hello") throw new Error(`bad hello: ${JSON.stringify(hello)}\n${a.stderr}`);
  return a;
}

export const userSend = (message_id, text = `msg:m${message_id}`) => ({ input: "user-send", message_id, text });
export const postResponse = (message_id, response) => ({ input: "post-response", message_id, response });
export const fetchResponse = (request_id, chunks = [], written_turns = []) => ({
  input: "fetch-response",
  request_id,
  snapshot_seq: chunks.length === 0 ? 0 : chunks[chunks.length - 1].seq,
  chunks,
  written_turns,
});
