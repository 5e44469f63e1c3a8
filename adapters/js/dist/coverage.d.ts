export declare class Coverage {
    private readonly script;
    /** The wrapper's length before the bundle's first character (loader.ts, CompiledBundle). */
    private readonly points;
    private readonly sources;
    private readonly root;
    private session;
    private constructor();
    /** Coverage of `file` (the bundle, evaluated after `prefix`), if its source map is there. */
    static load(file: string, code: string, prefix: number): Coverage | null;
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
