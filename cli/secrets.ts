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

/** `label` names the secret in prompts and errors ("admin's password"); `confirm`: asked twice in a terminal. */
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
  const prompt = label.charAt(0).toUpperCase() + label.slice(1);
  const terminal = hiddenTerminal();
  try {
    const first = await terminal.ask(`${prompt}: `);
    if (confirm && (await terminal.ask(`${prompt} again: `)) !== first) throw new UsageError(`the ${label} and its repetition differ`);
    return first;
  } finally {
    terminal.close();
  }
}

/**
 * The terminal in raw mode (nothing typed is echoed) from before the first question is shown until
 * the last answer is read, so a line typed or pasted early is not echoed either. Questions go to
 * stderr: stdout stays the command's answer.
 */
function hiddenTerminal(): { ask(question: string): Promise<string>; close(): void } {
  const input = process.stdin;
  const lines: string[] = [];
  let current = '';
  let cancelled = false;
  let waiting: ((answer: string | Error) => void) | null = null;
  const deliver = () => {
    if (!waiting) return;
    if (cancelled) waiting(new UsageError('cancelled'));
    else if (lines.length > 0) waiting(lines.shift()!);
  };
  const onData = (chunk: string) => {
    for (const char of chunk) {
      if (char === '\r' || char === '\n' || char === '\u0004') {
        lines.push(current);
        current = '';
        process.stderr.write('\n');
      } else if (char === '\u0003') cancelled = true;
      else if (char === '\u007f' || char === '\b') current = Array.from(current).slice(0, -1).join('');
      else current += char;
    }
    deliver();
  };
  input.setEncoding('utf8');
  input.setRawMode(true);
  input.on('data', onData);
  input.resume();
  return {
    ask(question) {
      process.stderr.write(question);
      return new Promise((resolve, reject) => {
        waiting = (answer) => {
          waiting = null;
          if (answer instanceof Error) reject(answer);
          else resolve(answer);
        };
        deliver();
      });
    },
    close() {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
    },
  };
}
