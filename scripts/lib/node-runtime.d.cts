// Types for node-runtime.cjs.
/** The Node major the launchers run on. */
export declare const WANTED_MAJOR: number;
/** Resolves on Node >= WANTED_MAJOR; otherwise runs `script` again under the pinned Node and exits with its status. */
export declare function runOnNode24(options: { root: string; script: string; log?: (text: string) => void }): Promise<void>;
