// The routed fetch (fetch.ts): what a store's `fetch` gives without undici's body streams,
// checked against what `fetch` is specified to give.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RoutedResponse, routedFetch } from "../dist/fetch.js";

const origin = new URL("https://app.test");

/** A fetch whose route records each request and answers `answer` (or what `answer` returns). */
function recording(answer = '{"ok":true}') {
  const seen = [];
  const fetch = routedFetch(origin, async (method, url, body) => {
    seen.push([method, url.href, body]);
    return typeof answer === "function" ? answer() : answer;
  });
  return { fetch, seen };
}

test("a request is routed with its method (normalised as fetch does), absolute URL and body text", async () => {
  const { fetch, seen } = recording();
  await fetch("/api/rows?limit=5");
  await fetch(new URL("https://app.test/api/m"), { method: "post", body: '{"a":1}' });
  await fetch("/api/m", { method: "patch", body: "x" }); // PATCH is not normalised by fetch
  await fetch(new Request("https://app.test/api/r", { method: "PUT", body: "from a Request" }));
  await fetch("/api/blob", { method: "POST", body: new Blob(["from a Blob"]) });
  assert.deepEqual(seen, [
    ["GET", "https://app.test/api/rows?limit=5", ""],
    ["POST", "https://app.test/api/m", '{"a":1}'],
    ["patch", "https://app.test/api/m", "x"],
    ["PUT", "https://app.test/api/r", "from a Request"],
    ["POST", "https://app.test/api/blob", "from a Blob"],
  ]);
});

test("the answer is a real Response whose body is read once, as fetch's are", async () => {
  const { fetch } = recording('{"rows":[1,2]}');
  const res = await fetch("/api/rows");
  assert.ok(res instanceof Response);
  assert.equal(res.ok, true);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.url, "https://app.test/api/rows");
  const copy = res.clone();
  assert.equal(res.bodyUsed, false);
  assert.deepEqual(await res.json(), { rows: [1, 2] });
  assert.equal(res.bodyUsed, true);
  await assert.rejects(res.json(), TypeError);
  await assert.rejects(res.text(), TypeError);
  assert.throws(() => res.clone(), TypeError);
  assert.equal(await copy.text(), '{"rows":[1,2]}');
  // Read as a stream, it is the same text, and then it is used.
  const streamed = await fetch("/api/rows");
  assert.equal(await new Response(streamed.body).text(), '{"rows":[1,2]}');
  assert.equal(streamed.bodyUsed, true);
  await assert.rejects(streamed.json(), TypeError);
  assert.deepEqual(new Uint8Array(await (await fetch("/x")).arrayBuffer()), new TextEncoder().encode('{"rows":[1,2]}'));
  assert.ok((await fetch("/x")) instanceof RoutedResponse);
});

test("a request fetch refuses, or one aborted, is rejected without being routed", async () => {
  const { fetch, seen } = recording();
  await assert.rejects(fetch("/api/rows", { body: "a GET with a body" }), TypeError);
  await assert.rejects(fetch("http://[bad"), TypeError);
  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(fetch("/api/rows", { signal: aborted.signal }), { name: "AbortError" });
  assert.deepEqual(seen, []);
  // Aborted while the answer is pending: the abort reason.
  let release;
  const slow = routedFetch(origin, () => new Promise((resolve) => (release = resolve)));
  const controller = new AbortController();
  const pending = slow("/api/rows", { signal: controller.signal });
  controller.abort(new Error("the tab went away"));
  await assert.rejects(pending, /the tab went away/);
  release("{}");
  // A route's rejection is the fetch's.
  const failing = routedFetch(origin, async () => {
    throw new TypeError("reconcile-sim: no route for GET /nowhere");
  });
  await assert.rejects(failing("/nowhere"), /no route for GET \/nowhere/);
});

test("the answer is a Response in every way a store reads one, without undici's objects until it asks for them", async () => {
  const { fetch } = recording('{"x":1}');
  const res = await fetch("/api/rows");
  assert.equal(Object.prototype.toString.call(res), "[object Response]");
  assert.deepEqual([res.ok, res.status, res.statusText, res.type, res.redirected], [true, 200, "", "default", false]);
  assert.ok(res.headers instanceof Headers);
  assert.deepEqual([...res.headers], [["content-type", "application/json"]]);
  assert.equal(res.headers, res.headers);
  assert.deepEqual(await res.clone().json(), { x: 1 });
  assert.deepEqual(await res.blob().then((b) => b.text()), '{"x":1}');
});
