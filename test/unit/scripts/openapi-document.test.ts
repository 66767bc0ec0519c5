/**
 * The committed OpenAPI document and client types are the ones the API serves: a route change
 * without `npm run openapi:generate` fails here, with that command in the message.
 */
import fs from 'node:fs';
import path from 'node:path';
import { internalOpenApiDocument, openApiDocument } from '../../../api/openapi-document';
import { CLIENT_FILES, schemaTypes } from '../../../scripts/openapi/client-files';
import { documentDrift } from '../../../scripts/openapi/drift';

const ROOT = path.resolve(__dirname, '../../..');
const committed = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('the committed OpenAPI document', () => {
  it('is the document the API serves', () => {
    const problem = documentDrift(openApiDocument(), JSON.parse(committed(CLIENT_FILES.document)), CLIENT_FILES.document);
    if (problem) throw new Error(problem);
  });

  it('leaves the internal service API out; the internal document, for operators, holds it and only it', () => {
    const paths = (document: Record<string, any>) => Object.keys(document.paths as Record<string, unknown>);
    const publicPaths = paths(openApiDocument());
    expect(publicPaths.filter((p) => p.startsWith('/internal'))).toEqual([]);
    expect(Object.keys(openApiDocument().components.securitySchemes)).toEqual(['bearerAuth']);
    const internal = internalOpenApiDocument();
    expect(paths(internal).sort()).toEqual([
      '/internal/events',
      '/internal/health',
      '/internal/notifications',
      '/internal/outbox',
      '/internal/outbox/{id}/requeue',
      '/internal/service-tokens/{token_id}/revoke',
    ]);
    expect(Object.keys(internal.components.securitySchemes)).toEqual(['internalToken']);
    const problem = documentDrift(internal, JSON.parse(committed(CLIENT_FILES.internalDocument)), CLIENT_FILES.internalDocument);
    if (problem) throw new Error(problem);
  });

  it('has its client types generated from it', () => {
    if (schemaTypes(ROOT, path.join(ROOT, CLIENT_FILES.document)) !== committed(CLIENT_FILES.schema)) {
      throw new Error(`${CLIENT_FILES.schema} is not openapi-typescript's output for ${CLIENT_FILES.document}: run \`npm run openapi:generate\``);
    }
  });
});

describe('documentDrift', () => {
  it('names where a stale copy differs and the command that regenerates it', () => {
    const served = openApiDocument();
    const stale = JSON.parse(JSON.stringify(served));
    delete stale.paths['/api/v1/assets'].post;
    stale.info.version = '0.9.0';
    expect(documentDrift(served, stale, 'client/openapi.json')).toBe(
      'client/openapi.json is not the document the API serves (they differ at /info/version, /paths/~1api~1v1~1assets/post): run `npm run openapi:generate` and commit the result.',
    );
    expect(documentDrift(served, JSON.parse(JSON.stringify(served)), 'client/openapi.json')).toBeNull();
  });
});
