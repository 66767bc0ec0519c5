// Types for tools.cjs.
export interface Tools {
  temporal: string;
  temporalTestServer: string;
  minio: string;
}
export declare const VERSIONS: {
  temporal: string;
  temporalTestServer: string;
  minio: string;
  schemathesis: string;
  oasdiff: string;
  node: string;
  kustomize: string;
  kubernetesValidate: string;
};
export declare function ensureTools(options: { root: string; log?: (text: string) => void }): Promise<Tools>;
/** The path of oasdiff, built once into .tools/bin (or OASDIFF_BIN). */
export declare function ensureOasdiff(options: { root: string; log?: (text: string) => void }): Promise<string>;
/** The path of the pinned Node (VERSIONS.node), fetched once from the npm registry into .tools/node. */
export declare function ensureNode(options: { root: string; log?: (text: string) => void }): Promise<string>;
/** The path of kustomize, built once into .tools/bin (or KUSTOMIZE_BIN). */
export declare function ensureKustomize(options: { root: string; log?: (text: string) => void }): Promise<string>;
/** The path of kubernetes-validate, installed once from PyPI into .tools/k8s (the Kubernetes JSON schemas). */
export declare function ensureKubernetesValidate(options: { root: string; log?: (text: string) => void }): Promise<string>;
