/** The value of one sample of a Prometheus text answer (the first whose labels include `labels`), or undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.entries(labels).every(([key, value]) => (match[3] ?? '').includes(`${key}="${value}"`));
    if (present) return Number(match[4]);
  }
  return undefined;
}
