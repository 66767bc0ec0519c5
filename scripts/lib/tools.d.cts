// Types for tools.cjs.
export interface Tools {
  temporal: string;
  temporalTestServer: string;
  minio: string;
}
export declare const VERSIONS: { temporal: string; temporalTestServer: string; minio: string };
export declare function ensureTools(options: { root: string; log?: (text: string) => void }): Promise<Tools>;
