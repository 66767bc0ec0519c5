/**
 * The guard against breaking existing clients (scripts/openapi/breaking-changes.ts), run with the
 * real oasdiff on copies of the real document: a removed field or path, a narrowed type or a new
 * required input fails it unless the version is raised and CHANGELOG.md names the operation.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import toolsLib = require('../../../scripts/lib/tools.cjs');
import { changelogSection, checkCompatibility } from '../../../scripts/openapi/breaking-changes';
import { CLIENT_FILES, ClientFiles } from '../../../scripts/openapi/client-files';

const ROOT = path.resolve(__dirname, '../../..');
const released = () => JSON.parse(fs.readFileSync(path.join(ROOT, CLIENT_FILES.baseline), 'utf8'));
const RELEASED_CHANGELOG = '# Changelog\n\n## 1.0.0 - 2026-11-27\n\nFirst release.\n';

let oasdiff: string;
let dir: string;
beforeAll(async () => {
  oasdiff = await toolsLib.ensureOasdiff({ root: ROOT, log: () => undefined }); // built once into .tools/bin
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-guard-'));
}, 600_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The guard over the released document as baseline and `change` applied to a copy of it. */
function guard(change: (document: any) => void, changelog = RELEASED_CHANGELOG): string | null {
  const base = released();
  base.info.version = '1.0.0';
  const revision = JSON.parse(JSON.stringify(base));
  change(revision);
  const files: ClientFiles = { ...CLIENT_FILES, baseline: path.join(dir, 'base.json'), document: path.join(dir, 'revision.json'), changelog: path.join(dir, 'CHANGELOG.md') };
  fs.writeFileSync(files.baseline, JSON.stringify(base));
  fs.writeFileSync(files.document, JSON.stringify(revision));
  fs.writeFileSync(files.changelog, changelog);
  return checkCompatibility(ROOT, oasdiff, files);
}

const assetResponse = (d: any) => d.paths['/api/v1/assets/{asset_id}'].get.responses['200'].content['application/json'].schema;
const removeAssetName = (d: any) => delete assetResponse(d).properties.name;

describe('the breaking-change guard', () => {
  it("passes on the repository's document against its baseline", () => {
    expect(checkCompatibility(ROOT, oasdiff)).toBeNull();
  });

  it('fails on a removed response field without a CHANGELOG note, saying what to do', () => {
    const problem = guard(removeAssetName);
    expect(problem).toContain('GET /api/v1/assets/{asset_id}: removed the optional property `name` from the response with the `200` status [response-optional-property-removed]');
    expect(problem).toContain("info.version is 1.0.0: a breaking change needs a major version above the baseline's 1.0.0");
    expect(problem).toContain('the "## 1.0.0" section of CHANGELOG.md does not name `GET /api/v1/assets/{asset_id}`');
    expect(problem).toContain('npm run openapi:generate');
  });

  it('passes on the same change with a major version and a CHANGELOG section naming the operation', () => {
    const bumped = (d: any) => {
      removeAssetName(d);
      d.info.version = '2.0.0';
    };
    const noted = '# Changelog\n\n## 2.0.0 - 2026-12-01\n\n- `GET /api/v1/assets/{asset_id}` no longer answers `name`.\n\n' + RELEASED_CHANGELOG.slice('# Changelog\n\n'.length);
    expect(guard(bumped, noted)).toBeNull();
    // The version alone, or a section that does not name the operation, is not a note.
    expect(guard(bumped)).toContain('CHANGELOG.md has no "## 2.0.0" section');
    expect(guard(bumped, noted.replace('`GET /api/v1/assets/{asset_id}`', 'the asset'))).toContain(
      'the "## 2.0.0" section of CHANGELOG.md does not name `GET /api/v1/assets/{asset_id}`',
    );
  });

  it('fails on a removed path, naming each of its operations', () => {
    const problem = guard((d) => delete d.paths['/api/v1/brandings']);
    expect(problem).toContain('GET /api/v1/brandings: API path removed without deprecation');
    expect(problem).toContain('POST /api/v1/brandings: API path removed without deprecation');
  });

  it('fails on a new required input and on a narrowed type', () => {
    expect(guard((d) => d.paths['/api/v1/assets'].get.parameters.push({ name: 'site', in: 'query', required: true, schema: { type: 'string' } }))).toContain(
      'GET /api/v1/assets: added the new required `query` request parameter `site`',
    );
    expect(guard((d) => (d.paths['/api/v1/assets'].post.requestBody.content['application/json'].schema.properties.name.maxLength = 10))).toContain(
      "POST /api/v1/assets: the `name` request property's maxLength was decreased to `10`",
    );
  });

  it('passes on a compatible change without a note: a new optional response field', () => {
    expect(guard((d) => (assetResponse(d).properties.site_code = { type: 'string' }))).toBeNull();
  });
});

describe('changelogSection', () => {
  it('is the text under the version heading, up to the next version', () => {
    const changelog = '# Changelog\n\n## 2.0.0 - 2026-12-01\n\nBroke `GET /a`.\n\n## 1.0.0\n\nFirst.\n';
    expect(changelogSection(changelog, '2.0.0')).toBe('\n\nBroke `GET /a`.\n\n');
    expect(changelogSection(changelog, '1.0.0')).toBe('\n\nFirst.\n');
    expect(changelogSection(changelog, '2.0')).toBeNull();
  });
});
