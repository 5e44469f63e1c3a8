// reconcile-sim's HTML reports in a real headless Chromium (the system's): what the issue
// asks of them, checked on the pages the real binary writes (see lib.mjs).

import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch, makeReports, pathToFileURL, scenario, watchedPage } from "../lib.mjs";

let reports;
let browser;

before(async () => {
  reports = makeReports();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  reports?.remove();
});

/** Open `file`, check on the way out that nothing left the page and nothing erred. */
async function withPage(file, check) {
  const w = await watchedPage(browser.context, reports.dir);
  try {
    await w.page.goto(pathToFileURL(file).href);
    await check(w.page);
    assert.deepEqual(w.outside, [], "requests left the page");
    assert.deepEqual(w.errors, [], "the page logged errors");
  } finally {
    await w.page.close();
  }
}

/** The page's step data, as its script reads it. */
const stepsData = (page) => page.evaluate(() => JSON.parse(document.getElementById("steps-data").textContent));

/** Press `key` until the current row is `target` (at most `limit` presses). */
async function stepTo(page, target, limit = 1000) {
  for (let i = 0; i < limit; i++) {
    const current = await page.evaluate(() => document.querySelector("svg.diagram g.row.current")?.dataset.i);
    if (Number(current) === target) return;
    await page.keyboard.press(Number(current) < target ? "ArrowRight" : "ArrowLeft");
  }
  assert.fail(`never reached step ${target}`);
}

describe("a scenario's page", () => {
  for (const name of ["bug-a", "bug-b", "bug-c", "bug-d"]) {
    test(`${name}: every step is drawn, and stepping to the break shows the invariant and the difference`, async () => {
      const sc = scenario(name);
      await withPage(reports.pages[name], async (page) => {
        const data = await stepsData(page);
        // One row per step of the file (its index as the label), then one per drain step.
        const labels = await page.$$eval("svg.diagram g.row", (rows) => rows.map((r) => r.dataset.step));
        assert.equal(labels.length, data.steps.length);
        for (let i = 0; i < sc.steps.length; i++) assert.ok(labels.includes(String(i)), `step ${i} of ${name} is not drawn`);
        // Then the drain's steps, if the main phase broke nothing.
        const drain = labels.filter((l) => l.startsWith("d"));
        assert.equal(labels.length, sc.steps.length + drain.length);
        // Every step of the file did something a row says (none skipped in these files).
        assert.equal(await page.locator("svg.diagram g.row.skipped").count(), 0);
        // From the first step, the keyboard walks to the breaking step.
        await page.keyboard.press("Home");
        assert.equal(await page.locator("svg.diagram g.row.current").getAttribute("data-i"), "0");
        assert.equal(await page.locator("#step-now .broke").count(), 0, "no break shown at step 0");
        const at = data.break;
        assert.equal(typeof at, "number", "the page names a breaking step");
        await stepTo(page, at);
        const now = await page.locator("#step-now").innerText();
        assert.match(now, new RegExp(`${sc.expect} broken here`), now);
        assert.ok(await page.locator("svg.diagram g.row.break.current").count() === 1, "the breaking row is current");
        // The tab that broke shows its render against the DB with a difference marked.
        const broken = page.locator("#tabs section.tab.broken");
        assert.equal(await broken.count(), 1);
        const differences = await broken.locator("tr.twice, tr.missing, tr.lost, tr.differs").count();
        assert.ok(differences > 0, "no difference marked at the break");
        // The verdict names the class, what it needs, and the command to copy.
        const verdict = await page.locator("section.verdict").innerText();
        assert.match(verdict, new RegExp(`FAIL: ${sc.expect}`));
        assert.match(verdict, /class: /);
        assert.match(verdict, /needs/);
        assert.match(await page.locator("#replay-command").innerText(), /^reconcile-sim replay .*\.json$/);
      });
    });
  }

  test("the slider, the buttons, a click and the address choose a step", async () => {
    await withPage(reports.pages["bug-d"], async (page) => {
      const data = await stepsData(page);
      await page.locator("#first").click();
      await page.locator("#next").click();
      await page.locator("#next").click();
      assert.equal(await page.locator("svg.diagram g.row.current").getAttribute("data-i"), "2");
      assert.match(await page.locator("#step-now").innerText(), /^Step 2 \(3 of/);
      await page.locator("#step-slider").fill("5");
      assert.equal(await page.locator("svg.diagram g.row.current").getAttribute("data-i"), "5");
      await page.locator("#row-4 text.label").click();
      assert.equal(await page.locator("svg.diagram g.row.current").getAttribute("data-i"), "4");
      // The address follows once stepping pauses.
      await page.waitForURL(/#step-4$/);
      await page.keyboard.press("b");
      assert.equal(await page.locator("svg.diagram g.row.current").getAttribute("data-i"), String(data.break));
      await page.keyboard.press("End");
      assert.equal(await page.locator("svg.diagram g.row.current").getAttribute("data-i"), String(data.steps.length - 1));
      // A link to a step opens on it.
      await page.goto(`${pathToFileURL(reports.pages["bug-d"]).href}#step-3`);
      assert.equal(await page.locator("svg.diagram g.row.current").getAttribute("data-i"), "3");
    });
  });

  test("a reordered event's arrow crosses the one it overtook", async () => {
    await withPage(reports.pages.reordered, async (page) => {
      const arrows = await page.$$eval("svg.diagram g.arrow", (gs) =>
        gs.map((g) => {
          const l = g.querySelector("line");
          const n = (a) => Number(l.getAttribute(a));
          return {
            kind: g.dataset.kind,
            id: g.dataset.id,
            client: g.dataset.client,
            overtakes: Number(g.dataset.overtakes),
            a: [n("x1"), n("y1")],
            b: [n("x2"), n("y2")],
          };
        }),
      );
      const over = arrows.filter((a) => a.kind === "event" && a.overtakes > 0);
      assert.ok(over.length > 0, "the scenario has a reordered delivery");
      for (const o of over) {
        const crossed = arrows.filter((a) => a !== o && a.kind === "event" && a.client === o.client && crosses(a, o));
        assert.ok(crossed.length >= o.overtakes, `${o.id} overtook ${o.overtakes} but crosses ${crossed.map((c) => c.id)}`);
      }
      // In order, nothing crosses: the bug-d page (ws_reorder_window 1) has no crossing events.
      assert.equal(await page.locator("svg.diagram g.arrow.event.overtakes").count(), over.length);
      const row = await page.locator("svg.diagram g.row", { hasText: "overtakes" }).first().innerHTML();
      assert.match(row, /overtakes 2 older/);
    });
    await withPage(reports.pages["bug-d"], async (page) => {
      assert.equal(await page.locator("svg.diagram g.arrow.overtakes").count(), 0);
    });
  });

  test("the 200-step report opens and steps through every step quickly", async () => {
    const w = await watchedPage(browser.context, reports.dir);
    try {
      const started = Date.now();
      await w.page.goto(pathToFileURL(reports.pages["long-200"]).href);
      const timing = await w.page.evaluate(() => {
        const nav = performance.getEntriesByType("navigation")[0];
        const next = document.getElementById("next");
        document.getElementById("first").click();
        const steps = JSON.parse(document.getElementById("steps-data").textContent).steps.length;
        const t0 = performance.now();
        for (let i = 1; i < steps; i++) {
          next.click();
          // Lay out what the step shows, as a person stepping would see it drawn.
          void document.body.offsetHeight;
        }
        const stepped = performance.now() - t0;
        return { open: nav.loadEventEnd, stepped, steps, current: document.querySelector("g.row.current").dataset.i };
      });
      const total = timing.open + timing.stepped;
      console.log(
        `200-step report: opened in ${timing.open.toFixed(0)} ms, stepped through ${timing.steps} steps in ${timing.stepped.toFixed(0)} ms (${(timing.stepped / timing.steps).toFixed(2)} ms a step); ${total.toFixed(0)} ms together (wall ${Date.now() - started} ms)`,
      );
      assert.ok(timing.steps >= 200, `${timing.steps} steps`);
      assert.equal(Number(timing.current), timing.steps - 1);
      // A bound about ten times what it measures on a loaded 2-core machine (see
      // docs/report.md): it catches a page grown slow, never a busy machine.
      assert.ok(total < 3000, `open + step took ${total} ms`);
      assert.deepEqual(w.outside, []);
      assert.deepEqual(w.errors, []);
    } finally {
      await w.page.close();
    }
  });
});

describe("a campaign's page", () => {
  test("the fuzz report links every class to a page that opens", async () => {
    let hrefs = [];
    await withPage(reports.pages.campaign, async (page) => {
      assert.match(await page.locator("h1").innerText(), /reconcile-sim fuzz/);
      const table = await page.locator("table.matrix").innerText();
      for (const inv of ["inv1-no-loss", "inv2-no-duplicate", "inv3-newer-turn", "inv4-converges", "inv5-render-shape", "crash"]) {
        assert.ok(table.includes(inv), `no ${inv} column`);
      }
      const classes = await page.locator("table.classes tbody tr").count();
      assert.ok(classes > 0, "the campaign found classes");
      hrefs = await page.$$eval("table.classes a.scenario-link", (as) => as.map((a) => a.href));
      assert.equal(hrefs.length, classes, "a class without a link");
    });
    for (const href of hrefs) {
      await withPage(new URL(href).pathname, async (page) => {
        assert.match(await page.locator("h1").innerText(), /^Scenario /);
        assert.ok((await page.locator("svg.diagram g.row").count()) > 0);
        // Back to the campaign.
        assert.equal(await page.locator("nav a").getAttribute("href"), "report.html");
      });
    }
  });

  test("the nightly report plots classes and throughput over the nights found", async () => {
    await withPage(reports.pages.nightly, async (page) => {
      assert.match(await page.locator("h1").innerText(), /reconcile-sim nightly/);
      const rows = await page.locator("table.history tbody tr").count();
      assert.equal(rows, 2, "two nights found");
      assert.equal(await page.locator("svg.chart").count(), 2);
      assert.ok((await page.locator("svg.chart rect.bar").count()) >= 2);
      // Each new class links to its page, in the night's own folder.
      for (const href of await page.$$eval("table.classes a.scenario-link", (as) => as.map((a) => a.href))) {
        assert.ok(existsSync(new URL(href).pathname), href);
      }
    });
    // `nightly --html` wrote each night's own page too.
    const nights = join(reports.dir, "nightly");
    for (const night of readdirSync(nights)) {
      assert.ok(existsSync(join(nights, night, "report.html")), `${night} has no report`);
    }
  });
});

/** Whether segments `p` and `q` cross (properly: not at an end they share). */
function crosses(p, q) {
  const side = (a, b, c) => Math.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
  return side(p.a, p.b, q.a) * side(p.a, p.b, q.b) < 0 && side(q.a, q.b, p.a) * side(q.a, q.b, p.b) < 0;
}
