// Types for layers.cjs.
export interface Layer {
  may: readonly string[] | '*';
  types?: readonly string[];
  role: string;
}
export declare const LAYERS: Readonly<Record<string, Layer>>;
export declare const EVERY_LAYER: '*';
export declare function layerOf(file: string): string | null;
export declare function folderProblem(file: string): string | null;
export declare function importProblem(from: string, to: string, typeOnly: boolean): string | null;
