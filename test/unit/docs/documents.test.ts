/**
 * The documents a reader of a clone opens (README.md, CHANGELOG.md, docs/, the READMEs beside the
 * code): every relative link leads to a file of the repository (the specification and the design
 * live outside it, so a link to them is dead in any clone), no text points at the issue tracker
 * ("issue 17"), and the README stays short enough to be read to the end. The decision records
 * (docs/decisions/) keep their one format, their index lists each of them, with its status, and
 * those in force name no setting or code that the code no longer has.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'coverage']);
const README_MAX_LINES = 200;
const DECISIONS = path.join('docs', 'decisions');
const DECISIONS_INDEX = path.join(DECISIONS, 'README.md');
/** A page: a record longer than this is more than one decision, or history. */
const RECORD_MAX_LINES = 80;
const SLUG = '[a-z0-9]+(?:-[a-z0-9]+)*';
const STATUS = new RegExp(`^Status: (accepted|superseded by (${SLUG})|supersedes (${SLUG}))$`);
const RECORD_SECTIONS = ['## Context', '## Decision', '## Consequences'];

/** Every Markdown file of the repository, outside dependencies, build output and git-ignored dot folders. */
function markdownFiles(dir = ROOT): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIPPED_FOLDERS.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith('.md') ? [path.relative(ROOT, full)] : [];
  });
}

/** The text a reader sees as prose and links: fenced blocks and inline code left out. */
const withoutCode = (markdown: string): string => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');

/** The targets of inline links and images `[text](target)` and of reference definitions `[label]: target`. */
function linkTargets(markdown: string): string[] {
  const text = withoutCode(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
  const references = [...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1]!);
  return [...inline, ...references];
}

/** Why a link of `file` (repository-relative) does not lead to a file of the repository, or null. */
function brokenLink(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) return null; // a URL or an anchor of the page
  const pathPart = decodeURIComponent(target.split('#')[0]!.split('?')[0]!);
  const resolved = path.resolve(ROOT, path.dirname(file), pathPart);
  if (path.relative(ROOT, resolved).startsWith('..')) return `${file}: ${target} points outside the repository`;
  return fs.existsSync(resolved) ? null : `${file}: ${target} does not exist`;
}

/** Mentions of the issue tracker's numbers: "issue 17", "issues 19 and 21", "issue #20". */
const issueReferences = (markdown: string): string[] => [...withoutCode(markdown).matchAll(/\bissues?\s*#?\d+/gi)].map((match) => match[0]);

/** The line after a record's title that states its status: the first that is not blank. */
const statusLine = (markdown: string): string =>
  markdown
    .split('\n')
    .slice(1)
    .find((line) => line.trim() !== '') ?? '';

/**
 * What is wrong with the decision record `slug` (its file name without `.md`): `# <title>`, then
 * `Status: accepted` (or `superseded by <slug>` / `supersedes <slug>`, an existing other record),
 * then exactly the sections Context, Decision and Consequences, at most a page. [] when nothing.
 */
function recordProblems(slug: string, markdown: string, recordExists: (slug: string) => boolean): string[] {
  const problems: string[] = [];
  const lines = markdown.split('\n');
  if (!new RegExp(`^${SLUG}$`).test(slug)) problems.push('its file name is not a kebab-case slug');
  if (!/^# \S/.test(lines[0] ?? '')) problems.push('its first line is not "# <title>"');
  const status = STATUS.exec(statusLine(markdown));
  const other = status?.[2] ?? status?.[3];
  if (!status) problems.push('its title is not followed by "Status: accepted", "Status: superseded by <slug>" or "Status: supersedes <slug>"');
  else if (other !== undefined && (other === slug || !recordExists(other))) problems.push(`its status names ${other}, which is not another record`);
  const sections = withoutCode(markdown)
    .split('\n')
    .filter((line) => line.startsWith('## '))
    .map((line) => line.trimEnd());
  if (sections.join('|') !== RECORD_SECTIONS.join('|')) problems.push(`its sections are ${sections.join(', ') || 'none'}, not ${RECORD_SECTIONS.join(', ')}`);
  if (lines.length > RECORD_MAX_LINES) problems.push(`it has ${lines.length} lines, more than a page (${RECORD_MAX_LINES})`);
  return problems.map((problem) => `${slug}.md: ${problem}`);
}

/**
 * Where the code reads its settings and names its codes: the service's folders, its tools, its
 * tests (codes put together from parts, such as EMAIL_ACCOUNT_NOT_FOUND, are named whole there)
 * and its deployment files.
 */
const CODE_PATHS = ['api', 'workers', 'services', 'orchestration', 'workflows', 'activities', 'infra', 'db', 'domain', 'cli', 'scripts', 'bench', 'deploy', 'test'];
const CODE_FILES = ['Dockerfile', 'docker-compose.yml', 'knexfile.js', 'package.json'];
const CODE_EXTENSIONS = /\.(ts|cjs|mjs|js|json|ya?ml|env|sh|py)$/;

function codeText(): string {
  const walk = (dir: string): string[] =>
    fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const file = path.join(dir, entry.name);
      // This folder's own tests name whatever they check for.
      if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) || file === path.join('test', 'unit', 'docs') ? [] : walk(file);
      return CODE_EXTENSIONS.test(entry.name) ? [fs.readFileSync(path.join(ROOT, file), 'utf8')] : [];
    });
  return [...CODE_PATHS.flatMap(walk), ...CODE_FILES.map((file) => fs.readFileSync(path.join(ROOT, file), 'utf8'))].join('\n');
}

/** The upper-case names with an underscore a text mentions: settings (`WEBHOOK_PARKED_PER_TENANT`), error codes (`PAYLOAD_TOO_LARGE`). */
const upperCaseNames = (markdown: string): string[] => [...new Set([...markdown.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((match) => match[0]))];

/** The status a record states (`accepted`, `superseded by x`, `supersedes x`), or null. */
const recordStatus = (markdown: string): string | null => STATUS.exec(statusLine(markdown))?.[1] ?? null;

/** The index's table rows `| [title](<slug>.md) | <status> | ... |`: each record it lists and the status it shows, links read as their text. */
function indexEntries(markdown: string): Array<{ slug: string; status: string }> {
  return [...withoutCode(markdown).matchAll(new RegExp(`^\\|\\s*\\[[^\\]]+\\]\\((${SLUG})\\.md\\)\\s*\\|([^|]*)\\|`, 'gm'))].map((match) => ({
    slug: match[1]!,
    status: match[2]!.replace(/\[([^[\]]+)\]\([^)]*\)/g, '$1').trim(),
  }));
}

describe('the documents of the repository', () => {
  const files = markdownFiles();
  const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');

  it('are found', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', DECISIONS_INDEX, path.join('docs', 'CONFIGURATION.md')]));
  });

  it('link only to files of the repository', () => {
    expect(files.flatMap((file) => linkTargets(read(file)).map((target) => brokenLink(file, target))).filter((problem) => problem !== null)).toEqual([]);
  });

  it('name no issue numbers', () => {
    expect(files.flatMap((file) => issueReferences(read(file)).map((reference) => `${file}: ${reference}`))).toEqual([]);
  });

  it(`keep the README under ${README_MAX_LINES} lines`, () => {
    expect(read('README.md').split('\n').length).toBeLessThan(README_MAX_LINES);
  });
});

describe('the decision records', () => {
  const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');
  const slugs = fs
    .readdirSync(path.join(ROOT, DECISIONS))
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .map((name) => name.slice(0, -'.md'.length));
  const record = (slug: string): string => read(path.join(DECISIONS, `${slug}.md`));

  it('are found', () => {
    expect(slugs.length).toBeGreaterThan(0);
  });

  it('each have the one format: title, status, context, decision, consequences, at most a page', () => {
    expect(slugs.flatMap((slug) => recordProblems(slug, record(slug), (other) => slugs.includes(other)))).toEqual([]);
  });

  it('in force name only settings and codes that the code still has', () => {
    const code = codeText();
    const inForce = slugs.filter((slug) => !(recordStatus(record(slug)) ?? '').startsWith('superseded by'));
    const gone = inForce.flatMap((slug) =>
      upperCaseNames(record(slug))
        .filter((name) => !code.includes(name))
        .map((name) => `${slug}.md: ${name}`),
    );
    expect(gone).toEqual([]);
  });

  it('are each listed once in the index, with the status the record states', () => {
    const listed = indexEntries(read(DECISIONS_INDEX));
    const problems = [
      ...slugs.filter((slug) => !listed.some((entry) => entry.slug === slug)).map((slug) => `${slug}.md is not in the index`),
      ...listed.filter((entry, i) => listed.findIndex((other) => other.slug === entry.slug) !== i).map((entry) => `${entry.slug}.md is listed twice`),
      ...listed.filter((entry) => !slugs.includes(entry.slug)).map((entry) => `the index lists ${entry.slug}.md, which does not exist`),
      ...listed
        .filter((entry) => slugs.includes(entry.slug) && entry.status !== recordStatus(record(entry.slug)))
        .map((entry) => `the index shows ${entry.slug}.md as "${entry.status}", the record says "${recordStatus(record(entry.slug))}"`),
    ];
    expect(problems).toEqual([]);
  });
});

describe('the document checks themselves', () => {
  it('find inline links and reference definitions, not code', () => {
    const markdown = [
      'See [the spec](../shared/SPEC.md) and [docs](docs/FEATURES.md#layers "title").',
      '[ref]: docs/decisions/README.md',
      '`[not](a-link.md)`',
      '```',
      '[nor](this.md)',
      '```',
    ].join('\n');
    expect(linkTargets(markdown)).toEqual(['../shared/SPEC.md', 'docs/FEATURES.md#layers', 'docs/decisions/README.md']);
  });

  it('refuse a link outside the repository or to a missing file, and accept URLs, anchors and files', () => {
    expect(brokenLink('README.md', '../shared/SPEC.md')).toMatch(/outside the repository/);
    expect(brokenLink('docs/decisions/README.md', '../../../shared/DESIGN.md')).toMatch(/outside the repository/);
    expect(brokenLink('README.md', 'docs/NOWHERE.md')).toMatch(/does not exist/);
    expect(brokenLink('README.md', 'https://temporal.io')).toBeNull();
    expect(brokenLink('README.md', '#troubleshooting')).toBeNull();
    expect(brokenLink('docs/FEATURES.md', 'decisions/README.md#webhooks')).toBeNull();
    expect(brokenLink('docs/FEATURES.md', '../client/openapi.json')).toBeNull();
  });

  it('find a decision record in the one format, and each way out of it', () => {
    const good = ['# A title', '', 'Status: accepted', '', '## Context', 'Why.', '', '## Decision', '- What.', '', '## Consequences', '- Then.'].join('\n');
    const exists = (slug: string) => slug === 'older-one';
    expect(recordProblems('a-record', good, exists)).toEqual([]);
    expect(recordProblems('a-record', good.replace('Status: accepted', 'Status: superseded by older-one'), exists)).toEqual([]);
    expect(recordProblems('a-record', good.replace('\n\nStatus', '\nStatus'), exists)).toEqual([]);
    expect(recordProblems('A_Record', good, exists)).toEqual(['A_Record.md: its file name is not a kebab-case slug']);
    expect(recordProblems('a-record', good.replace('# A title', 'A title'), exists)).toEqual(['a-record.md: its first line is not "# <title>"']);
    expect(recordProblems('a-record', good.replace('Status: accepted', 'Status: proposed'), exists)).toEqual([expect.stringContaining('is not followed by "Status: accepted"')]);
    expect(recordProblems('a-record', good.replace('Status: accepted', 'Status: supersedes gone'), exists)).toEqual([
      'a-record.md: its status names gone, which is not another record',
    ]);
    expect(recordProblems('a-record', good.replace('## Consequences', '## Notes'), exists)).toEqual([
      expect.stringContaining('its sections are ## Context, ## Decision, ## Notes'),
    ]);
    expect(recordProblems('a-record', good.replace('## Consequences', '## Consequences\n\n## History'), exists)).toEqual([expect.stringContaining('## History')]);
    expect(recordProblems('a-record', `${good}\n${'- more\n'.repeat(RECORD_MAX_LINES)}`, exists)).toEqual([expect.stringContaining('more than a page')]);
    expect(recordStatus(good.replace('Status: accepted', 'Status: supersedes older-one'))).toBe('supersedes older-one');
  });

  it("read the index's rows: the record each links and the status it shows", () => {
    const index = [
      '| record | status | in one line |',
      '| --- | --- | --- |',
      '| [A title](a-record.md) | accepted | why |',
      '| [Old one](older-one.md) | superseded by [a-record](a-record.md) | was |',
      'See [a-record](a-record.md) too.',
    ].join('\n');
    expect(indexEntries(index)).toEqual([
      { slug: 'a-record', status: 'accepted' },
      { slug: 'older-one', status: 'superseded by a-record' },
    ]);
  });

  it('find issue numbers in prose', () => {
    expect(issueReferences('## Hostile input (issue 17)\nissues 19 and 21, Issue #20; a cron `1#2`')).toEqual(['issue 17', 'issues 19', 'Issue #20']);
  });
});
