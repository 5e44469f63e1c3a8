#!/usr/bin/env bash
# Evidence for `--localize` (docs/localize.md): plant one bug at a time into a copy of
# examples/production and examples/svelte (the design note's bugs A–D, reverted where
# the examples have them fixed, and bugs of our own, one per mechanism, in different
# functions), fuzz each copy with and without `--localize` on the same seeds, take as the
# plant's classes those whose shrunk witness does not show its class when replayed on the
# example as it is (unplanted), and tabulate per plant: those classes, the rank of the
# planted line in each one's localization (ties counted pessimistically), whether its
# classes group as one cause (and no two plants share a best line), and the time
# localization added to the whole `fuzz`.
#
# Usage: scripts/localize-plants.sh [PLANT…]   (default: every plant)
# Environment:
#   RECONCILE_SIM  the binary (default: ${CARGO_TARGET_DIR:-target}/checked/reconcile-sim)
#   SEEDS          seeds per fuzz (default 200)
#   OUT            where the copies and results go (default target/localize-plants)
# Prints a Markdown table (the one in docs/localize.md) and writes OUT/table.md.
# Exit 0 when done (the table says how each plant fared); 2: bad usage.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
bin="${RECONCILE_SIM:-${CARGO_TARGET_DIR:-target}/checked/reconcile-sim}"
[ -x "$bin" ] || { echo "no binary at $bin (cargo build --profile checked)" >&2; exit 2; }
[ -f adapters/js/dist/cli.cjs ] || { echo "adapters/js/dist/cli.cjs missing (npm run build -w adapters/js)" >&2; exit 2; }
export RECONCILE_SIM="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
export SEEDS="${SEEDS:-200}"
# Inside the repository, so the copies resolve svelte and esbuild from its node_modules.
export OUT="${OUT:-target/localize-plants}"
exec python3 - "$@" <<'PY'
import json, os, shutil, subprocess, sys, time

repo = os.getcwd()
out = os.path.abspath(os.environ["OUT"])
sim = os.environ["RECONCILE_SIM"]
seeds = os.environ["SEEDS"]
adapter = os.path.join(repo, "adapters/js/dist/cli.cjs")

SVELTE = "src/lib/stores/tabs.svelte.ts"
PROD = "src/lib/stores/chat.svelte.ts"
# name: (example, file, the line as it is, the line planted, mechanism)
PLANTS = {
    # The design note's bugs, reverted (the examples carry their fixes).
    "A-svelte": ("svelte", SVELTE,
        "const preserveTurnId = tab.liveTurnId !== null && tab.liveTurnId !== sealedTurnId ? tab.liveTurnId : null;",
        "const preserveTurnId = null;",
        "bug A: reconcile wipes a newer turn (reloadChunksFromApi)"),
    "B-svelte": ("svelte", SVELTE,
        'return m.turnId === undefined && m.role === "user"; // optimistic/queued, not yet sealed (bug B)',
        'return false;',
        "bug B: optimistic rows dropped on reconcile (keep)"),
    "C-svelte": ("svelte", SVELTE,
        "if (m.turnId === undefined && !isQueuedRow(m)) {",
        "if (m.turnId === undefined) {",
        "bug C: turn-start backfill tags queued rows (handleEvent turn-start)"),
    "D-svelte": ("svelte", SVELTE,
        "m.turnId = tab.liveTurnId ?? undefined;",
        "m.turnId = undefined;",
        "bug D: consumed row left unbound (handleEvent message-consumed)"),
    "A-production": ("production", PROD,
        "const newer = this.liveTurnId !== null && this.liveTurnId !== sealedTurnId ? this.liveTurnId : null;",
        "const newer = null;",
        "bug A: reconcile wipes a newer turn (reloadHistory)"),
    "C-production": ("production", PROD,
        "if (m.turnId === null && !m.id.startsWith(QUEUED)) {",
        "if (m.turnId === null) {",
        "bug C: backfill tags queued rows (bindInitiator)"),
    "D-production": ("production", PROD,
        "if (m) Object.assign(m, { id, turnId: this.liveTurnId }); // persisted shape, bound to the running turn (D)",
        "if (m) Object.assign(m, { id, turnId: null });",
        "bug D: consumed row left unbound (onFrame message.consumed)"),
    # Our own, one per mechanism, each in another function.
    "delta-overwrites": ("svelte", SVELTE,
        "current.text += event.text;",
        "current.text = event.text;",
        "a delta replaces the streamed text instead of appending (handleEvent text-delta)"),
    "scroll-never-flushes": ("svelte", SVELTE,
        "if (!scrolledUp && pending !== undefined) {",
        "if (scrolledUp && pending !== undefined) {",
        "a deferred reconcile never runs at the bottom (setScrolledUp)"),
    "history-drops-first": ("svelte", SVELTE,
        "if (tab) tab.chunks = rows;",
        "if (tab) tab.chunks = rows.slice(1);",
        "the first history fetch drops a row (loadHistory)"),
    "tool-keeps-stream": ("production", PROD,
        "if (last?.type === \"tool_batch\") return last;",
        "if (last?.type === \"tool_batch\" || m.parts.length > 1) return m.parts[0] as Extract<Part, { type: \"tool_batch\" }>;",
        "a tool call lands in the stream's first part (batchOf)"),
    "stream-reuses-other-turn": ("production", PROD,
        "if (!m || m.turnId !== turnId) {",
        "if (!m) {",
        "a new turn's text streams into the last turn's message (streaming)"),
    "send-never-queues": ("production", PROD,
        "if (busy) this.queued.push(id);",
        "if (busy && this.queued.length > 1) this.queued.push(id);",
        "a queued send is not remembered as queued (send)"),
    "deferred-dropped": ("production", PROD,
        "this.deferredTurn = turnId;",
        "this.deferredTurn = this.deferredTurn ?? null;",
        "a reconcile deferred while scrolled up is forgotten (reconcile)"),
}
EXAMPLES = {
    "svelte": {"map": "adapter.ts", "known": "known/current"},
    "production": {"map": "reconcile/adapter.ts", "known": "known"},
}

def copy_example(name, plant):
    src = os.path.join(repo, "examples", name)
    dst = os.path.join(out, plant, "app")
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("node_modules", "reconcile-failures", "scenarios"))
    return dst

def plant_line(app, file, old, new):
    path = os.path.join(app, file)
    text = open(path).read().split("\n")
    hits = [i for i, l in enumerate(text) if l.strip() == old]
    if len(hits) != 1:
        sys.exit(f"{file}: the line to plant is found {len(hits)} times: {old}")
    i = hits[0]
    indent = text[i][: len(text[i]) - len(text[i].lstrip())]
    text[i] = indent + new
    open(path, "w").write("\n".join(text))
    return i + 1

def store_of(ex):
    return f"exec:node {adapter} {EXAMPLES[ex]['map']}"

def fuzz(app, ex, plant, localize):
    res = os.path.join(out, plant, "localized" if localize else "plain")
    if os.path.exists(res):
        shutil.rmtree(res)
    args = [sim, "fuzz", "--store", store_of(ex), "--seeds", seeds, "--max-shrink-time", "20s", "--json", "--out", res]
    if localize:
        args.append("--localize")
    t = time.monotonic()
    p = subprocess.run(args, cwd=app, capture_output=True, text=True)
    took = time.monotonic() - t
    if p.returncode not in (0, 1):
        sys.exit(f"{plant}: fuzz exited {p.returncode}:\n{p.stderr}")
    return json.loads(p.stdout), took

def caused_by_plant(ex, scenario):
    """The class's witness, replayed on the example as it is (unplanted), does not show it."""
    p = subprocess.run([sim, "replay", scenario["path"], "--store", store_of(ex), "--json"],
                       cwd=os.path.join(repo, "examples", ex), capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"replay {scenario['path']} exited {p.returncode}:\n{p.stderr}")
    return json.loads(p.stdout).get("class_name") != scenario.get("class_name")

wanted = sys.argv[1:] or list(PLANTS)
rows = []
for plant in wanted:
    ex, file, old, new, what = PLANTS[plant]
    app = copy_example(ex, plant)
    line = plant_line(app, file, old, new)
    # Build the bundle once, outside the timings (both runs then start from the cache).
    subprocess.run(["node", adapter, "build", EXAMPLES[ex]["map"]], cwd=app, check=True, capture_output=True)
    plain, t_plain = fuzz(app, ex, plant, False)
    loc, t_loc = fuzz(app, ex, plant, True)
    classes = []
    for sc in loc.get("scenarios", []):
        if not caused_by_plant(ex, sc):
            continue
        lines = sc.get("localized") or []
        rank = None
        for x in lines:
            if x["file"] == file and x["line"] == line:
                rank = sum(1 for y in lines if y["score"] >= x["score"])
        top = f"{lines[0]['file']}:{lines[0]['line']}" if lines else None
        classes.append({"class": sc.get("class_name"), "rank": rank, "top": top, "reason": sc.get("localize_reason"),
                        "top3": [f"{x['file']}:{x['line']} {x['score']}" for x in lines[:3]]})
    tops = {c["top"] for c in classes}
    grouped = len(classes) > 0 and len(tops) == 1 and None not in tops
    ranks = [c["rank"] for c in classes]
    rows.append({"plant": plant, "example": ex, "what": what, "at": f"examples/{ex}/{file}:{line}",
                 "classes": len(classes), "all_classes": len(loc.get("scenarios", [])), "ranks": ranks,
                 "grouped": grouped, "tops": sorted(t for t in tops if t),
                 "plain_s": t_plain, "localize_s": t_loc, "detail": classes})
    print(f"{plant}: {len(classes)} classes caused, ranks {ranks}, grouped {grouped}, {t_plain:.1f}s -> {t_loc:.1f}s", file=sys.stderr)

def fmt_rank(r):
    return "–" if r is None else str(r)

table = ["| plant | example | planted line | classes it causes (of all found) | rank of the planted line per class | one cause | fuzz s (plain → --localize) | added |",
         "|---|---|---|---|---|---|---|---|"]
for r in rows:
    added = (r["localize_s"] - r["plain_s"]) / r["plain_s"] * 100 if r["plain_s"] > 0 else 0
    table.append(f"| {r['plant']} | {r['example']} | `{r['at']}` | {r['classes']} ({r['all_classes']}) | {', '.join(fmt_rank(x) for x in r['ranks']) or '–'} | "
                 f"{'yes' if r['grouped'] else 'no'} | {r['plain_s']:.1f} → {r['localize_s']:.1f} | {added:+.0f} % |")
# Different plants' classes must not group: no best line shared between two plants.
shared = {}
for r in rows:
    for t in r["tops"]:
        shared.setdefault(t, []).append(r["plant"])
clashes = {t: ps for t, ps in shared.items() if len(ps) > 1}
text = "\n".join(table) + "\n"
text += "\nbest lines shared between plants: " + ("none" if not clashes else "; ".join(f"{t}: {', '.join(ps)}" for t, ps in clashes.items())) + "\n"
print(text)
os.makedirs(out, exist_ok=True)
open(os.path.join(out, "table.md"), "w").write(text)
json.dump(rows, open(os.path.join(out, "rows.json"), "w"), indent=1)
PY
