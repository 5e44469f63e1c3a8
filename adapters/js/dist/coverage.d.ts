export declare class Coverage {
    private readonly script;
    /** The wrapper's length before the bundle's first character (loader.ts, CompiledBundle). */
    private readonly points;
    private readonly sources;
    private readonly root;
    /** Called once block coverage is on: recompile the bundle and make later stores from it. */
    private readonly started;
    private session;
    private constructor();
    /** Coverage of `file` (the bundle, evaluated after `prefix`), if its source map is there. */
    static load(file: string, code: string, prefix: number, started: () => void): Coverage | null;
    private post;
    /**
     * The app's lines run since the previous call, by file (relative to the project root),
     * each file's lines ascending. The first call starts coverage and reports nothing.
     */
    take(): Promise<{
        root: string;
        files: Record<string, number[]>;
    }>;
}
