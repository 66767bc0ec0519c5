// Types for tools.cjs.
export interface Tools {
  temporal: string;
  temporalTestServer: string;
  minio: string;
}
export declare const VERSIONS: { temporal: string; temporalTestServer: string; minio: string; schemathesis: string; oasdiff: string };
export declare function ensureTools(options: { root: string; log?: (text: string) => void }): Promise<Tools>;
/** The path of oasdiff, built once into .tools/bin (or OASDIFF_BIN). */
export declare function ensureOasdiff(options: { root: string; log?: (text: string) => void }): Promise<string>;
