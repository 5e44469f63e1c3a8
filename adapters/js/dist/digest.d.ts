export declare function canonicalJson(value: unknown): string;
export declare function sha256(text: string): string;
