// What a user is told when the engine, the CLI or reconcile-sim-adapter is missing: the
// command that gets it, in a clone of the repository (the workspace's build, `npm ci`) and
// in a project that installed this package without its platform package (the tarballs,
// since none of the packages is on the npm registry yet); never a package that does not
// exist. Needs no engine: each case runs a copy of the package's files where nothing is.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const root = dirname(here);
const require = createRequire(import.meta.url);
const { triple, remedy } = require("../native.cjs");
const platform = triple();

/** The package's files copied into a project that is not a clone, with nothing installed. */
function outsideCopy() {
  const dir = mkdtempSync(join(tmpdir(), "reconcile-sim-install-"));
  const pkg = join(dir, "node_modules", "reconcile-sim");
  for (const f of ["package.json", "native.cjs", "index.js", "vitest.js", "worker.js", "bin"]) {
    cpSync(join(here, f), join(pkg, f), { recursive: true });
  }
  return { dir, pkg };
}

/** Words no message may hold: an install of a package that is not on the registry. */
const noDeadEnd = (text) => {
  assert.doesNotMatch(text, /npm i(nstall)? (-D |--save-dev )?reconcile-sim(-adapter|-[a-z0-9]+-[a-z0-9]+)?\b(?!-tarballs)/, text);
};

test("in a clone, a missing engine or CLI names the build that makes both, at the repository root", () => {
  const words = remedy(platform);
  assert.equal(words, `Build the engine and the CLI from this clone (cargo, minutes): cd ${JSON.stringify(root)} && npm run build -w node`);
  noDeadEnd(words);
});

test("outside a clone, a missing engine names the tarballs (the packages are not on the registry), not a package to install by name", () => {
  const { dir, pkg } = outsideCopy();
  try {
    const copy = createRequire(join(pkg, "package.json"))("./native.cjs");
    const words = copy.remedy(platform);
    assert.match(words, /not on the npm registry yet/);
    assert.match(words, /scripts\/pack-offline\.sh --pack-only DIR/);
    assert.match(words, /npm i -D DIR\/\*\.tgz/);
    assert.match(words, /cargo install --path sim --locked/);
    noDeadEnd(words);
    assert.throws(() => copy.load(), (e) => {
      assert.match(e.message, new RegExp(`^reconcile-sim: no engine for this platform \\(${platform}\\)\\. The engine and the CLI come in the package reconcile-sim-${platform}, which is not on the npm registry yet`));
      assert.match(e.message, /Tried:\n {2}.*reconcile-sim\..*\.node: .*\n {2}reconcile-sim-/);
      noDeadEnd(e.message);
      return true;
    });
    // The CLI wrapper says the same, with exit 2.
    const env = { ...process.env };
    delete env.RECONCILE_SIM;
    const ran = spawnSync(process.execPath, [join(pkg, "bin", "reconcile-sim.js"), "--version"], { cwd: dir, encoding: "utf8", env });
    assert.equal(ran.status, 2, ran.stderr);
    assert.match(ran.stderr, new RegExp(`^reconcile-sim: no CLI binary for this platform \\(${platform}\\)\\. The engine and the CLI come in`));
    noDeadEnd(ran.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("without reconcile-sim-adapter installed, a command says how to install it", async () => {
  const { dir, pkg } = outsideCopy();
  try {
    const { check } = await import(pathToFileURL(join(pkg, "index.js")).href);
    await assert.rejects(check({ adapter: "adapter.ts", cwd: dir }), (e) => {
      assert.match(e.message, /^reconcile-sim: cannot load the package reconcile-sim-adapter \(.*\): install it beside reconcile-sim: it is not on the npm registry yet, so from the tarballs scripts\/pack-offline\.sh --pack-only DIR makes/);
      noDeadEnd(e.message);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
