/**
 * Captures the service's JSON log lines so a test can scan them, e.g. for secrets. Under Jest,
 * pino writes through process.stdout.write; lines of the service (`"service":"industrial-ops"`)
 * are kept and not echoed, other output passes through.
 */
export interface LogCapture {
  lines(): string[];
  stop(): void;
}

export function captureServiceLogs(): LogCapture {
  const captured: string[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with .call(this) below and put back as it was
  const original = process.stdout.write;
  process.stdout.write = function write(this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
    if (!text.includes('"service":"industrial-ops"')) return (original as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    captured.push(...text.split('\n').filter(Boolean));
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    if (callback) process.nextTick(callback);
    return true;
  } as typeof process.stdout.write;
  return {
    lines: () => [...captured],
    stop: () => {
      process.stdout.write = original;
    },
  };
}
