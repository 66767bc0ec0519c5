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

/**
 * The metric names a Prometheus text answer exports: every sample's name, every declared family
 * (`# TYPE`), and a histogram's or summary's series (`_bucket`, `_sum`, `_count`) whether or not it
 * has samples yet.
 */
export function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const declared = /^# TYPE ([a-zA-Z_:][\w:]*) (\w+)/.exec(line);
    if (declared) {
      const [, name, type] = declared as unknown as [string, string, string];
      names.add(name);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
      if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
      continue;
    }
    const sampled = /^([a-zA-Z_:][\w:]*)[{ ]/.exec(line);
    if (sampled) names.add(sampled[1]!);
  }
  return names;
}
