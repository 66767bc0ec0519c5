/**
 * The documents a reader of a clone opens (README.md, CHANGELOG.md, docs/, the READMEs beside the
 * code): every relative link leads to a file of the repository (the specification and the design
 * live outside it, so a link to them is dead in any clone), no text points at the issue tracker
 * ("issue 17"), and the README stays short enough to be read to the end.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'coverage']);
const README_MAX_LINES = 200;

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

describe('the documents of the repository', () => {
  const files = markdownFiles();
  const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');

  it('are found', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', path.join('docs', 'DECISIONS.md'), path.join('docs', 'CONFIGURATION.md')]));
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

describe('the document checks themselves', () => {
  it('find inline links and reference definitions, not code', () => {
    const markdown = [
      'See [the spec](../shared/SPEC.md) and [docs](docs/FEATURES.md#layers "title").',
      '[ref]: docs/DECISIONS.md',
      '`[not](a-link.md)`',
      '```',
      '[nor](this.md)',
      '```',
    ].join('\n');
    expect(linkTargets(markdown)).toEqual(['../shared/SPEC.md', 'docs/FEATURES.md#layers', 'docs/DECISIONS.md']);
  });

  it('refuse a link outside the repository or to a missing file, and accept URLs, anchors and files', () => {
    expect(brokenLink('README.md', '../shared/SPEC.md')).toMatch(/outside the repository/);
    expect(brokenLink('docs/DECISIONS.md', '../../shared/DESIGN.md')).toMatch(/outside the repository/);
    expect(brokenLink('README.md', 'docs/NOWHERE.md')).toMatch(/does not exist/);
    expect(brokenLink('README.md', 'https://temporal.io')).toBeNull();
    expect(brokenLink('README.md', '#troubleshooting')).toBeNull();
    expect(brokenLink('docs/FEATURES.md', 'DECISIONS.md#webhooks')).toBeNull();
    expect(brokenLink('docs/FEATURES.md', '../client/openapi.json')).toBeNull();
  });

  it('find issue numbers in prose', () => {
    expect(issueReferences('## Hostile input (issue 17)\nissues 19 and 21, Issue #20; a cron `1#2`')).toEqual(['issue 17', 'issues 19', 'Issue #20']);
  });
});
