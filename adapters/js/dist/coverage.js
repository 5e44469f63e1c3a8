// The `coverage` extension (docs/protocol.md): which lines of the app's own source files a
// run executed, for the harness's fault localization (`--localize`).
//
// V8's precise block coverage (the inspector's `Profiler.startPreciseCoverage` with call
// counts and block granularity) is started by the first `coverage` request, never before:
// an adapter that is not asked pays nothing. V8 counts blocks only in functions it
// compiles after that, so starting it also recompiles the bundle and re-evaluates it for
// the stores of the next resets (`started`); without that, every function an earlier run
// of the process (or the code cache) compiled reports each of its lines as run whenever it
// was called, the branches it did not take included. Each answer holds what ran since the previous
// request (taking precise coverage with call counts resets them), so the harness asks once
// before a run's `reset` and once after it.
//
// Only the bundle's own script is read, and only the positions its source map (written
// beside it by the loader, `<bundle>.map`) maps to one of the app's own files: a line
// counts as run when any position mapped to it lies in a block V8 counted at least once.
// Installed packages, the mapping file and its stubs are left out when the map is made.
import { readFileSync } from "node:fs";
import { Session } from "node:inspector";
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** The segments of a source map's `mappings`: [generated line, column, source, original line]. */
function decode(mappings) {
    const out = [];
    let line = 0;
    let source = 0;
    let origLine = 0;
    let origCol = 0;
    let i = 0;
    let seg = "";
    const vlq = () => {
        let result = 0;
        let shift = 0;
        for (;;) {
            const d = B64.indexOf(seg[i++]);
            result += (d & 31) << shift;
            shift += 5;
            if ((d & 32) === 0)
                break;
        }
        return result & 1 ? -(result >>> 1) : result >>> 1;
    };
    for (const group of mappings.split(";")) {
        let col = 0;
        if (group !== "") {
            for (seg of group.split(",")) {
                i = 0;
                const fields = [];
                while (i < seg.length)
                    fields.push(vlq());
                col += fields[0];
                if (fields.length >= 4) {
                    source += fields[1];
                    origLine += fields[2];
                    origCol += fields[3];
                    out.push([line, col, source, origLine]);
                }
            }
        }
        line++;
    }
    return out;
}
export class Coverage {
    script;
    points;
    sources;
    root;
    started;
    session = null;
    constructor(script, 
    /** The wrapper's length before the bundle's first character (loader.ts, CompiledBundle). */
    points, sources, root, 
    /** Called once block coverage is on: recompile the bundle and make later stores from it. */
    started) {
        this.script = script;
        this.points = points;
        this.sources = sources;
        this.root = root;
        this.started = started;
    }
    /** Coverage of `file` (the bundle, evaluated after `prefix`), if its source map is there. */
    static load(file, code, prefix, started) {
        let map;
        try {
            map = JSON.parse(readFileSync(`${file}.map`, "utf8"));
        }
        catch {
            return null;
        }
        const meta = map.x_reconcile_sim;
        if (meta === undefined)
            return null;
        const own = new Set(meta.own);
        const lineStarts = [0];
        for (let i = 0; i < code.length; i++)
            if (code.charCodeAt(i) === 10)
                lineStarts.push(i + 1);
        const points = [];
        for (const [gl, gc, src, ol] of decode(map.mappings)) {
            if (!own.has(src) || gl >= lineStarts.length)
                continue;
            points.push({ offset: prefix + lineStarts[gl] + gc, source: src, line: ol + 1 });
        }
        points.sort((a, b) => a.offset - b.offset);
        return new Coverage(file, points, map.sources, meta.root, started);
    }
    post(method, params) {
        return new Promise((resolve, reject) => {
            this.session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result)));
        });
    }
    /**
     * The app's lines run since the previous call, by file (relative to the project root),
     * each file's lines ascending. The first call starts coverage and reports nothing.
     */
    async take() {
        if (this.session === null) {
            this.session = new Session();
            this.session.connect();
            await this.post("Profiler.enable");
            await this.post("Profiler.startPreciseCoverage", { callCount: true, detailed: true });
            this.started();
            // What evaluating the recompiled bundle ran (its module-level code) is no run's.
            await this.post("Profiler.takePreciseCoverage");
            return { root: this.root, files: {} };
        }
        const { result } = await this.post("Profiler.takePreciseCoverage");
        // The bundle compiled last (started() recompiled it) is the one the stores run now.
        const mine = result.filter((s) => s.url === this.script || s.url === `file://${this.script}`);
        const newest = mine.reduce((a, s) => (a === null || Number(s.scriptId) > Number(a.scriptId) ? s : a), null);
        const ranges = [];
        for (const f of newest?.functions ?? [])
            ranges.push(...f.ranges);
        // Outer ranges first: the innermost range holding a position gives its count.
        ranges.sort((a, b) => a.startOffset - b.startOffset || b.endOffset - a.endOffset);
        const run = new Map();
        const stack = [];
        let next = 0;
        for (const p of this.points) {
            while (next < ranges.length && ranges[next].startOffset <= p.offset) {
                const r = ranges[next++];
                while (stack.length > 0 && stack[stack.length - 1].endOffset <= r.startOffset)
                    stack.pop();
                stack.push(r);
            }
            while (stack.length > 0 && stack[stack.length - 1].endOffset <= p.offset)
                stack.pop();
            const top = stack[stack.length - 1];
            if (top === undefined || top.count === 0)
                continue;
            let lines = run.get(p.source);
            if (lines === undefined)
                run.set(p.source, (lines = new Set()));
            lines.add(p.line);
        }
        const files = {};
        for (const [source, lines] of [...run].sort((a, b) => (this.sources[a[0]] < this.sources[b[0]] ? -1 : 1))) {
            files[this.sources[source]] = [...lines].sort((a, b) => a - b);
        }
        return { root: this.root, files };
    }
}
