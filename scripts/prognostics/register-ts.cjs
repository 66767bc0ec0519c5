// Lets plain `node` run the prognostics TypeScript scripts (CommonJS) without tsx/ts-node:
// `node -r ./scripts/prognostics/register-ts.cjs scripts/prognostics-eval.ts`.
// Transpiles each required .ts file with @swc/core (already a dev dependency); no type checking.
const fs = require('fs');
const Module = require('module');
const swc = require('@swc/core');

Module._extensions['.ts'] = function compileTs(module, filename) {
  const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
