'use strict';
// The knex CLI's configuration: `npx knex migrate:status | migrate:rollback | migrate:down
// | migrate:list | migrate:make <name>` against DATABASE_MIGRATION_URL (the owner role the migrations
// run as), else DATABASE_URL; a stack started by `npm run up` is found through .data/stack.env,
// as `npm run migrate` finds it (variables already set win).
//
// The commands that read the database work on the compiled migrations in dist/db/migrations:
// `npm run migrate` (and the test stack) apply those and knex records them by file name, `*.js`,
// so the TypeScript sources would all look missing to it. `migrate:make` writes a TypeScript
// migration into db/migrations from the project's template instead (knex names it by the clock).
const fs = require('node:fs');
const path = require('node:path');

// `migrate:latest` and `migrate:up` would apply migrations without what `npm run migrate` does after
// them (db/migrate.ts: admit the app's role to the new tables, refuse a tenant table without
// row-level security, one migrator at a time): refused, with the command to use instead.
const APPLYING = ['migrate:latest', 'migrate:up'];
const applying = APPLYING.find((command) => process.argv.includes(command));
if (applying)
  throw new Error(`knexfile: \`knex ${applying}\` is not used here: run \`npm run migrate\` (as the owner role; it admits the app's role and checks row-level security)`);

const SOURCES = path.join(__dirname, 'db', 'migrations');
const COMPILED = path.join(__dirname, 'dist', 'db', 'migrations');
const making = process.argv.includes('migrate:make');

const stackEnv = path.join(__dirname, '.data', 'stack.env');
if (fs.existsSync(stackEnv)) process.loadEnvFile(stackEnv);

const connection = process.env.DATABASE_MIGRATION_URL || process.env.DATABASE_URL;
if (!connection && !making) throw new Error('knexfile: set DATABASE_MIGRATION_URL or DATABASE_URL (or start the stack with `npm run up`)');

/** A migration in db/migrations with no compiled copy in dist/ (or a newer one): knex would not see it. */
function unbuiltMigrations() {
  return fs
    .readdirSync(SOURCES)
    .filter((file) => file.endsWith('.ts'))
    .filter((file) => {
      const compiled = path.join(COMPILED, file.replace(/\.ts$/, '.js'));
      return !fs.existsSync(compiled) || fs.statSync(compiled).mtimeMs < fs.statSync(path.join(SOURCES, file)).mtimeMs;
    });
}

if (!making) {
  const unbuilt = unbuiltMigrations();
  if (unbuilt.length) throw new Error(`knexfile: ${unbuilt.join(', ')} not compiled into dist/ yet: run \`npm run build\` first`);
}

module.exports = {
  client: 'pg',
  connection,
  pool: { min: 0, max: 2 },
  migrations: making
    ? { directory: SOURCES, extension: 'ts', stub: path.join(__dirname, 'db', 'migration-template.stub') }
    : { directory: COMPILED, loadExtensions: ['.js'], tableName: 'knex_migrations' },
};
