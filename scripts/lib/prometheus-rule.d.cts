// Types for prometheus-rule.cjs.
export declare const RULES_FILE: string;
export declare const MANIFEST_FILE: string;
/** The PrometheusRule manifest's text for the rules file's text. */
export declare function renderPrometheusRule(rulesText: string): string;
/** Writes the manifest from the rules file; answers its path. */
export declare function writePrometheusRule(): string;
