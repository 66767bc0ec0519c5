/**
 * `npm run openapi:generate`: writes the OpenAPI document the API serves (built from the route
 * declarations, no server) to client/openapi.json and its types (openapi-typescript) to
 * client/schema.d.ts, and the internal service API's document for operators to
 * docs/internal-api.openapi.json. `-- --release` also makes it the baseline that later documents are checked
 * against (scripts/openapi/breaking-changes.ts): run it when a version is released, after its
 * CHANGELOG.md section is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { internalOpenApiDocument, openApiDocument } from '../api/openapi-document';
import { API_VERSION } from '../api/routers';
import { CLIENT_FILES, schemaTypes, serialiseDocument } from './openapi/client-files';
import { changelogSection } from './openapi/breaking-changes';

function main(): void {
  const root = process.cwd(); // npm runs scripts from the package root
  const at = (file: string) => path.join(root, file);
  const document = openApiDocument();
  const version = API_VERSION; // the document's info.version
  const text = serialiseDocument(document);
  fs.writeFileSync(at(CLIENT_FILES.document), text);
  fs.writeFileSync(at(CLIENT_FILES.schema), schemaTypes(root, at(CLIENT_FILES.document)));
  fs.writeFileSync(at(CLIENT_FILES.internalDocument), serialiseDocument(internalOpenApiDocument()));
  process.stdout.write(`wrote ${CLIENT_FILES.document} (version ${version}), ${CLIENT_FILES.schema} and ${CLIENT_FILES.internalDocument}\n`);
  if (process.argv.includes('--release')) {
    if (changelogSection(fs.readFileSync(at(CLIENT_FILES.changelog), 'utf8'), version) === null) {
      throw new Error(`CHANGELOG.md has no "## ${version}" section: write it before releasing ${version}`);
    }
    fs.writeFileSync(at(CLIENT_FILES.baseline), text);
    process.stdout.write(`wrote ${CLIENT_FILES.baseline}: ${version} is the baseline of the breaking-change check\n`);
  }
}

main();
