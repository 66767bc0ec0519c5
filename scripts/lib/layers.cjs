'use strict';
// The layers of the code (docs/FEATURES.md): what each top-level folder may import. One table for
// the whole tree, read by the ESLint rule `layers/imports` (eslint.config.mjs) and by the
// architecture test (test/unit/architecture/imports.test.ts). A TypeScript file in a folder that
// is not in the table fails the lint, so a new folder cannot escape the rule.
// Node built-ins only.

const EVERY_LAYER = '*';

/**
 * `may`: the folders whose code the layer imports; `types`: folders it takes types from only
 * (erased at compile time, so they do not tie its running code to that layer); `role`: why.
 * Files in the repository root (configuration) import freely.
 */
const LAYERS = {
  // Entry points and tools around the service: they assemble the layers.
  scripts: { may: EVERY_LAYER, role: 'operator commands and the tooling of up/test/bench' },
  bench: { may: EVERY_LAYER, role: 'benchmarks on a throwaway stack' },
  test: { may: EVERY_LAYER, role: 'tests' },
  demo: { may: ['client', 'domain', 'infra'], role: 'the demo plant talks to the service through its public API (client/)' },
  client: { may: [], role: 'the typed client stands alone: it is what integrators copy' },
  cli: {
    may: ['api', 'services', 'orchestration', 'db', 'domain', 'infra'],
    role: "the operator's command calls the services and db functions, never HTTP (of api/ only what the API defines for both: the login limiter, a resource's shape)",
  },
  // The service, from the top down.
  api: { may: ['services', 'orchestration', 'db', 'domain', 'infra'], role: 'the HTTP layer reaches workers only through Temporal' },
  workers: { may: ['activities', 'orchestration', 'workflows', 'db', 'domain', 'infra'], role: 'the worker process assembles workflows and activities' },
  services: { may: ['orchestration', 'workflows', 'db', 'domain', 'infra'], role: 'services sit below the API and reach workers only through Temporal' },
  orchestration: { may: ['workflows', 'db', 'domain', 'infra'], role: "Temporal's client side: starting, signalling, updating workflows" },
  workflows: { may: ['domain', 'infra'], types: ['activities', 'db'], role: 'deterministic workflow code: the types of its activities and rows, nothing that does I/O' },
  activities: { may: ['db', 'domain', 'infra'], role: 'the I/O of workflows; what starts workflows is given to them by the worker' },
  infra: { may: ['db', 'domain'], role: 'configuration and clients of the outside world (object store, Temporal, outbound HTTP, SMTP)' },
  db: { may: ['domain'], role: 'queries and units of work: pure rules only below them' },
  domain: { may: [], role: 'pure rules: no I/O, no other layer' },
};

/** The top-level folder of a repository-relative path (`/`-separated); null for a file of the root. */
function layerOf(file) {
  const slash = file.indexOf('/');
  return slash < 0 ? null : file.slice(0, slash);
}

/** Why a file cannot be where it is (its folder has no layer), or null. */
function folderProblem(file) {
  const layer = layerOf(file);
  if (layer === null || Object.hasOwn(LAYERS, layer)) return null;
  return `${layer}/ is not a layer: give it its allowed imports in scripts/lib/layers.cjs`;
}

/** Why `from` may not import `to` (repository-relative paths; `to` may name a folder's index), or null when it may. */
function importProblem(from, to, typeOnly) {
  const source = layerOf(from);
  const target = to.split('/')[0];
  if (source === null || source === target || !Object.hasOwn(LAYERS, source)) return null;
  const rule = LAYERS[source];
  if (rule.may === EVERY_LAYER || rule.may.includes(target)) return null;
  if (typeOnly && (rule.types ?? []).includes(target)) return null;
  const allowed = [...rule.may.map((layer) => `${layer}/`), ...(rule.types ?? []).map((layer) => `types of ${layer}/`)];
  return `${source}/ may import ${allowed.length ? allowed.join(', ') : 'nothing of another layer'}, not ${target}${Object.hasOwn(LAYERS, target) ? '/' : ''}: ${rule.role} (docs/FEATURES.md)`;
}

module.exports = { LAYERS, EVERY_LAYER, layerOf, folderProblem, importProblem };
