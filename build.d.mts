// Types of build.mjs (plain JavaScript, so that the launcher runs it without a TypeScript loader).
export declare const ROOT: string;
export declare const DIST: string;
/** Every input of the build, relative to `root`, sorted. */
export declare function listInputs(root?: string): string[];
/** True when `outdir` holds a build of exactly the current inputs, none touched since. */
export declare function isFresh(root?: string, outdir?: string): boolean;
/** Builds `root` into `outdir`; resolves to the build's duration in milliseconds. */
export declare function build(root?: string, outdir?: string): Promise<number>;
