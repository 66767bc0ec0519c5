/**
 * Secrets (passwords) come from a prompt that does not echo, from stdin, or from a file: never
 * from the command line, where `ps`, shell history and CI logs keep them.
 */
import fs from 'node:fs/promises';
import { UsageError } from './errors';

export interface SecretSource {
  /** `--password-stdin`: the whole of stdin, one trailing newline dropped. */
  stdin?: boolean;
  /** `--password-file <path>`: the file's content, one trailing newline dropped. */
  file?: string;
}

/** Read at most this much: a password is far shorter (login takes 200 characters). */
const MAX_SECRET_BYTES = 4_096;

const dropNewline = (text: string) => text.replace(/\r?\n$/, '');

export async function readSecret(label: string, source: SecretSource, options: { confirm?: boolean } = {}): Promise<string> {
  if (source.stdin && source.file !== undefined) throw new UsageError('give the password with --password-stdin or --password-file, not both');
  let secret: string;
  if (source.stdin) secret = dropNewline(await readStdin());
  else if (source.file !== undefined) secret = dropNewline(await readFileBounded(source.file));
  else if (process.stdin.isTTY) secret = await promptTwice(label, options.confirm ?? false);
  else throw new UsageError(`no ${label}: give it with --password-stdin or --password-file <path>, or run the command in a terminal to be asked`);
  if (!secret) throw new UsageError(`the ${label} is empty`);
  return secret;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_SECRET_BYTES) throw new UsageError(`stdin holds more than ${MAX_SECRET_BYTES} bytes: not a password`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readFileBounded(file: string): Promise<string> {
  const stat = await fs.stat(file).catch(() => {
    throw new UsageError(`cannot read ${file}`);
  });
  if (!stat.isFile() || stat.size > MAX_SECRET_BYTES) throw new UsageError(`${file} is not a file of at most ${MAX_SECRET_BYTES} bytes`);
  return fs.readFile(file, 'utf8');
}

async function promptTwice(label: string, confirm: boolean): Promise<string> {
  const first = await promptHidden(`${label}: `);
  if (confirm && (await promptHidden(`${label} again: `)) !== first) throw new UsageError(`the two ${label}s differ`);
  return first;
}

/** Asks on stderr (stdout stays the command's answer) and reads a line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  const input = process.stdin;
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new UsageError('cancelled'));
        if (char === '\u007f' || char === '\b') value = Array.from(value).slice(0, -1).join('');
        else value += char;
      }
    };
    process.stderr.write(question);
    input.setEncoding('utf8');
    input.setRawMode(true);
    input.on('data', onData);
    input.resume();
  });
}
