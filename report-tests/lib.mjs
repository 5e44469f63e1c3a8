// What the browser tests and the screenshot script share: the reports made by the real
// binary into a scratch folder, and a headless Chromium from the system's packages
// (/usr/bin/chromium, never a browser download) driven by playwright-core, with every page
// watched: a request for anything but the report's own files fails the test, and so does
// any console error or uncaught exception.

import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The binary: `$RECONCILE_SIM` (as .ci/run exports it), else the checked build. */
export function binary() {
  const bin = process.env.RECONCILE_SIM ?? join(repo, "target", "checked", "reconcile-sim");
  if (!existsSync(bin)) {
    throw new Error(`${bin} does not exist: build it first (cargo build --profile checked) or set RECONCILE_SIM`);
  }
  return bin;
}

/** Run the binary (in `cwd`, default the repository); its output. Exit 1 (violations found) is expected of a fuzz. */
export function sim(args, { allow = [0], cwd = repo } = {}) {
  try {
    return execFileSync(binary(), args, {
      cwd,
      encoding: "utf8",
      env: { ...process.env, RECONCILE_SIM_INVOKED_AS: "reconcile-sim" },
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (e) {
    if (allow.includes(e.status)) return e.stdout;
    throw new Error(`reconcile-sim ${args.join(" ")} exited ${e.status}:\n${e.stderr}`);
  }
}

/** The scenarios the tests open, by name: the note's bugs, a reordering, a 200-step run. */
export const SCENARIOS = {
  "bug-a": "scenarios/bug-a.json",
  "bug-b": "scenarios/bug-b.json",
  "bug-c": "scenarios/bug-c.json",
  "bug-d": "scenarios/bug-d.json",
  // Step 13 delivers e8 (text-delta) to c0 before e6 and e7: ws_reorder_window 3.
  reordered: "scenarios/known/current/stream-before-turn-start-gone-at-fetch.json",
  "long-200": "report-tests/fixtures/long-200.json",
};

/**
 * Make every kind of report in a fresh folder: each scenario's page (the scenario copied
 * there, so its replay command names it), a fuzz campaign's (`fuzz --html`) and a night's
 * with two nights of history (`nightly --html`, twice). Returns the folder and the pages.
 */
export function makeReports() {
  const dir = mkdtempSync(join(tmpdir(), "reconcile-sim-report-tests-"));
  // Everything runs in the scratch folder with relative paths, as a person would: the
  // pages then name `scenarios/bug-d.json`, not a temporary path.
  const at = { cwd: dir };
  mkdirSync(join(dir, "scenarios"));
  const pages = {};
  for (const [name, file] of Object.entries(SCENARIOS)) {
    copyFileSync(join(repo, file), join(dir, "scenarios", `${name}.json`));
    sim(["report", `scenarios/${name}.json`], at);
    pages[name] = join(dir, "scenarios", `${name}.html`);
  }
  sim(["fuzz", "--store", "current", "--seeds", "300", "--jobs", "2", "--html", "--out", "fuzz"], { ...at, allow: [1] });
  pages.campaign = join(dir, "fuzz", "report.html");
  const known = join(repo, "scenarios");
  for (const seed of ["1000", "2000"]) {
    sim(
      ["nightly", "--time", "2s", "--no-cargo-fuzz", "--stores", "current,fix-ab", "--jobs", "2", "--seed-start", seed, "--scenarios", known, "--out", "nightly", "--html"],
      { ...at, allow: [0, 1] },
    );
  }
  const out = sim(["report", "nightly", "--out", "nightly-report"], at);
  pages.nightly = join(dir, "nightly-report", "report.html");
  if (!existsSync(pages.nightly)) throw new Error(`no nightly report:\n${out}`);
  return { dir, pages, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The Chromium the tests drive: the system's, with flags that work in a container. */
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A browser with a new, empty profile (removed by `close`). */
export async function launch() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} does not exist: install Chromium from the system's packages (apt-get install -y chromium), or set CHROMIUM`);
  }
  const profile = mkdtempSync(join(tmpdir(), "reconcile-sim-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1500, height: 1000 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A page of `context` that records what would leave it: every request for anything but a
 * file under `root` is aborted and listed in `outside`; console errors and uncaught
 * exceptions are listed in `errors`.
 */
export async function watchedPage(context, root) {
  const allowed = pathToFileURL(root).href;
  const outside = [];
  const errors = [];
  const page = await context.newPage();
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(allowed)) return route.continue();
    outside.push(url);
    return route.abort();
  });
  // Requests the route cannot see (a file: URL elsewhere on disk) still show here.
  page.on("request", (r) => {
    if (!r.url().startsWith(allowed)) outside.push(r.url());
  });
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  return { page, outside, errors };
}

/** The scenario file `name` as JSON. */
export function scenario(name) {
  return JSON.parse(readFileSync(join(repo, SCENARIOS[name]), "utf8"));
}

export { pathToFileURL };
