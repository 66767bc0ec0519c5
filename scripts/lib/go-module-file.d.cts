// Types for go-module-file.cjs.
export interface GoModulePin {
  module: string;
  version: string;
  /** A path inside the module. */
  file: string;
}
export declare const SCHEMA_MODULES: { compose: GoModulePin; podMonitor: GoModulePin; prometheusRule: GoModulePin };
/** The absolute path of the file in Go's module cache, fetched once with `go mod download`. */
export declare function goModuleFile(pin: GoModulePin): string;
