// The CLI: a mapping and a .svelte.ts store with runes, compiled with Svelte's client
// runtime, $lib and kit.alias from svelte.config.js, bundled once and cached.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import { Adapter, CLI, fixture, here } from "./helpers.mjs";

// Svelte's folder as npm installed it for this package (in the repository's workspace, the
// root's node_modules).
const svelte = dirname(createRequire(join(here, "..", "package.json")).resolve("svelte/package.json"));

let project;

before(() => {
  // A copy of the fixture project, with the package and Svelte installed as npm would link them.
  project = mkdtempSync(join(tmpdir(), "reconcile-sim-adapter-cli-"));
  cpSync(fixture("svelte-app"), project, { recursive: true, filter: (src) => !src.includes("node_modules") });
  mkdirSync(join(project, "node_modules"));
  symlinkSync(join(here, ".."), join(project, "node_modules", "reconcile-sim-adapter"));
  symlinkSync(svelte, join(project, "node_modules", "svelte"));
});

after(() => rmSync(project, { recursive: true, force: true }));

const cli = (args, env = {}) => new Adapter([CLI, ...args], { cwd: project, env });

test("build compiles the mapping and its .svelte.ts store once; each adapter then starts from the cache", () => {
  const build = spawnSync(process.execPath, [CLI, "build", "adapter.ts"], { cwd: project, encoding: "utf8" });
  assert.equal(build.status, 0, build.stderr);
  assert.match(build.stderr, /^built .*node_modules\/\.cache\/reconcile-sim-adapter\/[0-9a-f]+\.cjs \(\d+ bytes, \d+ inputs\) in \d+ ms/m);
  const again = spawnSync(process.execPath, [CLI, "build", "adapter.ts"], { cwd: project, encoding: "utf8" });
  assert.match(again.stderr, /^cached /m);
});

test("runes run on Svelte's client runtime: $state, $derived and $effect all live", async () => {
  const a = cli(["adapter.ts", "--timing"]);
  // `coverage`: the bundle's source map is beside it (docs/protocol.md, "Source lines run").
  assert.deepEqual(await a.hello(), { type: "hello", protocol: 1, name: "fixture:counter", features: ["coverage"], clock: "timers run when due; the clock moves 0 ms per input", id: 1 });
  assert.deepEqual(await a.reset(), { type: "reset", id: 2 });
  const out = await a.input({ input: "user-send", message_id: 1, text: "msg:m1" });
  assert.deepEqual(out, {
    type: "output",
    effects: [{ effect: "post", message_id: 1, text: "msg:m1" }],
    // effects=0,1: the $effect ran on creation and after the change (the server runtime never runs it)
    render: [{ from: "live", id: "counter", role: "assistant", text: "counter count=1 doubled=2 effects=0,1 flushed=2" }],
    id: 3,
  });
  await a.close();
  assert.match(a.stderr, /ready in [\d.]+ ms since process start \(bundle cached/);
});

test("coverage: the store's own lines a run ran, mapped back to the .svelte.ts source, never the mapping's or a package's", async () => {
  const a = cli(["adapter.ts"]);
  await a.hello();
  // A run before coverage starts compiles inc() without block counters (a pooled process).
  await a.reset();
  await a.input({ input: "user-send", message_id: 1, text: "msg:m1" });
  // The first request starts coverage (and reports nothing); the store is made at reset.
  assert.deepEqual((await a.request({ type: "coverage" })).files, {});
  await a.reset();
  await a.input({ input: "user-send", message_id: 1, text: "msg:m1" });
  const c = await a.request({ type: "coverage" });
  assert.equal(c.type, "coverage");
  assert.equal(c.root, project);
  assert.deepEqual(Object.keys(c.files).sort(), ["app/lib/counter.svelte.ts", "app/util/label.ts"]);
  const lines = c.files["app/lib/counter.svelte.ts"];
  // The constructor (made at reset), inc() and the text getter ran; the singleton's module
  // line ran when the bundle was evaluated, before the run.
  for (const line of [11, 13, 16, 23, 24, 27, 28, 32]) assert.ok(lines.includes(line), `line ${line} in ${lines}`);
  assert.ok(!lines.includes(37), `${lines}`);
  // Per block, although inc() had been compiled before coverage started: the branch it
  // never takes is not reported.
  assert.ok(!lines.includes(25), `${lines}`);
  // Taking it resets the counts: with nothing run since, nothing is reported.
  assert.deepEqual((await a.request({ type: "coverage" })).files, {});
  await a.close();
});

test("--store hands the module's namespace to the factory", async () => {
  const a = cli(["--map", "adapter-store.ts", "--store", "app/lib/counter.svelte.ts"]);
  assert.equal((await a.hello()).name, "js:adapter-store.ts");
  await a.reset();
  const out = await a.input({ input: "user-send", message_id: 1, text: "msg:m1" });
  assert.equal(out.render[0].text, "via --store: counter count=1 doubled=2 effects=0,1 flushed=2");
  await a.close();
});

test("a module-level singleton survives a reset unless --fresh-module re-evaluates the modules", async () => {
  const run = async (flags) => {
    const a = cli(["adapter.ts", ...flags, "--", "shared"]);
    await a.hello();
    const texts = [];
    for (let i = 0; i < 2; i++) {
      await a.reset();
      texts.push((await a.input({ input: "user-send", message_id: 1, text: "msg:m1" })).render[0].text);
    }
    await a.close();
    return texts;
  };
  const [first, second] = await run([]);
  assert.equal(first, "counter count=1 doubled=2 effects=0,1 flushed=2");
  assert.equal(second, "counter count=2 doubled=4 effects=0,1,2 flushed=3"); // state leaked across the reset
  assert.deepEqual(await run(["--fresh-module"]), [first, first]);
});

test("editing a source file invalidates the cached bundle", async () => {
  const file = join(project, "app", "util", "label.ts");
  writeFileSync(file, readFileSync(file, "utf8").replace("count=", "n="));
  const a = cli(["adapter.ts", "--timing"]);
  await a.hello();
  await a.reset();
  const out = await a.input({ input: "user-send", message_id: 1, text: "msg:m1" });
  assert.equal(out.render[0].text, "counter n=1 doubled=2 effects=0,1 flushed=2");
  await a.close();
  assert.match(a.stderr, /bundle built/);
});

test("without svelte.config.js, $lib comes from tsconfig.json paths", async () => {
  const other = mkdtempSync(join(tmpdir(), "reconcile-sim-adapter-paths-"));
  try {
    cpSync(fixture("ts-paths-app"), other, { recursive: true });
    mkdirSync(join(other, "node_modules"));
    symlinkSync(join(here, ".."), join(other, "node_modules", "reconcile-sim-adapter"));
    symlinkSync(svelte, join(other, "node_modules", "svelte"));
    const a = new Adapter([CLI, "adapter.ts"], { cwd: other });
    await a.hello();
    await a.reset();
    await a.input({ input: "user-send", message_id: 1, text: "msg:m1" });
    const out = await a.input({ input: "user-send", message_id: 2, text: "msg:m2" });
    assert.deepEqual(out.render, [{ from: "live", id: "notes", role: "user", text: "2: msg:m1 msg:m2" }]);
    await a.close();
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

test("a mapping that does not load is reported by build, with a non-zero exit", () => {
  writeFileSync(join(project, "broken.ts"), 'import { nothing } from "$lib/missing";\nexport default nothing;\n');
  const build = spawnSync(process.execPath, [CLI, "build", "broken.ts"], { cwd: project, encoding: "utf8" });
  assert.equal(build.status, 1);
  assert.match(build.stderr, /Could not resolve "\$lib\/missing"|missing/);
});

test("modules: a mapping replaces the app's modules (however each import spells them) with stubs, without touching the app", async () => {
  // The app: a config module that cannot load outside the page, imported relatively and through $lib.
  mkdirSync(join(project, "app", "lib", "net"), { recursive: true });
  writeFileSync(join(project, "app", "lib", "config.ts"), 'export const config: { base: string } = JSON.parse(document.getElementById("cfg")!.textContent!);\n');
  writeFileSync(join(project, "app", "lib", "tracker.ts"), 'export function track(): string { throw new Error("real analytics"); }\n');
  writeFileSync(join(project, "app", "lib", "net", "client.ts"), 'import { config } from "../config";\nimport { track } from "$lib/tracker";\nexport const describe = () => `${config.base} ${track()}`;\n');
  mkdirSync(join(project, "stubs"), { recursive: true });
  writeFileSync(join(project, "stubs", "tracker.ts"), 'export const track = () => "stub-tracker";\n');
  writeFileSync(
    join(project, "override.ts"),
    [
      'import { defineAdapter } from "reconcile-sim-adapter";',
      'import { describe } from "$lib/net/client";',
      'export const modules = { "$lib/config": { config: { base: "/stub-api" } }, "./app/lib/tracker.ts": "./stubs/tracker.ts" };',
      "export default defineAdapter(() => ({ send() {}, scroll() {}, event() {}, render: () => [{ from: \"live\", id: \"d\", role: \"assistant\", text: describe() }] }));",
      "",
    ].join("\n"),
  );
  const a = cli(["override.ts"]);
  await a.hello();
  const out = await a.input({ input: "scroll", at_bottom: true }).catch(() => null);
  assert.equal(out.type, "error"); // input before reset: the adapter is up, the bundle loaded
  await a.reset();
  const rendered = await a.input({ input: "scroll", at_bottom: true });
  assert.deepEqual(rendered.render, [{ from: "live", id: "d", role: "assistant", text: "/stub-api stub-tracker" }], a.stderr);
  await a.close();
  // Without the overrides the app's own config module runs, and fails outside the page.
  writeFileSync(join(project, "plain.ts"), readFileSync(join(project, "override.ts"), "utf8").replace(/^export const modules.*$/m, ""));
  const plain = spawnSync(process.execPath, [CLI, "build", "plain.ts"], { cwd: project, encoding: "utf8" });
  assert.equal(plain.status, 1);
  assert.match(plain.stderr, /document is not defined/);
});
