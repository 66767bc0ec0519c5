import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { ExportZip } from '../../activities/privacy/export-zip';
import { readZip } from '../support/zip';

async function build(entries: Array<[string, Iterable<string> | AsyncIterable<string>]>): Promise<Buffer> {
  const out = new PassThrough();
  const parts: Buffer[] = [];
  out.on('data', (b: Buffer) => parts.push(b));
  const zip = new ExportZip(out, new Date('2026-11-23T10:20:30Z'));
  for (const [name, chunks] of entries) await zip.addEntry(name, chunks);
  const bytes = await zip.finish();
  const archive = Buffer.concat(parts);
  expect(archive.length).toBe(bytes);
  return archive;
}

const hasUnzip = (() => {
  try {
    execFileSync('unzip', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('ExportZip', () => {
  it('reports each entry with its uncompressed size and SHA-256', async () => {
    const out = new PassThrough();
    out.resume();
    const zip = new ExportZip(out, new Date('2026-11-23T10:20:30Z'));
    const a = await zip.addEntry('a.json', ['[', '{"x":1}', ']']);
    expect(a).toEqual({ name: 'a.json', size: 9, sha256: '45fa679977289675167a1e277c1febba4c59b00c64853a8462116f46f1a5f4f7' });
    const bytes = await zip.finish();
    expect(bytes).toBe(zip.bytesWritten);
  });

  it('round-trips names and contents, including an empty entry, UTF-8 names and chunks from an async source', async () => {
    async function* rows() {
      yield '[';
      for (let i = 0; i < 1000; i++) yield `${i ? ',' : ''}{"n":${i}}`;
      yield ']';
    }
    const zip = await build([
      ['conversations.json', rows()],
      ['ñame.json', ['{"é":"ü"}']],
      ['empty.txt', []],
    ]);
    const files = await readZip(zip);
    expect([...files.keys()]).toEqual(['conversations.json', 'ñame.json', 'empty.txt']);
    expect(JSON.parse(files.get('conversations.json')!.toString('utf8'))).toHaveLength(1000);
    expect(files.get('ñame.json')!.toString('utf8')).toBe('{"é":"ü"}');
    expect(files.get('empty.txt')!.length).toBe(0);
  });

  it('compresses JSON (the archive is smaller than its contents)', async () => {
    const body = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ id: i, body: 'the pump on line 3 vibrates again' })));
    const zip = await build([['messages.json', [body]]]);
    expect(zip.length).toBeLessThan(body.length / 4);
    expect(
      createHash('sha256')
        .update((await readZip(zip)).get('messages.json')!)
        .digest('hex'),
    ).toBe(createHash('sha256').update(body).digest('hex'));
  });

  (hasUnzip ? it : it.skip)('is accepted by the system unzip', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zip-'));
    const file = join(dir, 'a.zip');
    writeFileSync(
      file,
      await build([
        ['one.json', ['{"a":', '1}']],
        ['two.json', ['[1,2,3]']],
      ]),
    );
    expect(execFileSync('unzip', ['-t', file]).toString()).toContain('No errors detected');
    expect(execFileSync('unzip', ['-p', file, 'one.json']).toString()).toBe('{"a":1}');
  });
});

describe('ExportZip failures', () => {
  it('rejects instead of hanging when the output fails while the entry waits for it to drain', async () => {
    const out = new PassThrough({ highWaterMark: 16 });
    out.on('error', () => undefined);
    const zip = new ExportZip(out, new Date('2026-11-23T00:00:00Z'));
    setTimeout(() => out.destroy(new Error('upload failed')), 20);
    // 16 MiB of random bytes: they do not compress, so the unread output fills and the entry waits.
    const chunks = Array.from({ length: 256 }, () => randomBytes(64 * 1024).toString('latin1'));
    await expect(zip.addEntry('big.json', chunks)).rejects.toThrow(/upload failed|closed/);
    await expect(zip.finish()).rejects.toThrow(/upload failed|closed/);
  });

  it('rejects the entry when its source fails', async () => {
    const out = new PassThrough();
    out.resume();
    const zip = new ExportZip(out, new Date('2026-11-23T00:00:00Z'));
    async function* failing() {
      yield '[';
      throw new Error('cursor lost');
    }
    await expect(zip.addEntry('rows.json', failing())).rejects.toThrow('cursor lost');
  });
});
