import { generatePiiCorpus } from './bench/pii-corpus/corpus';
const seed = Number(process.argv[2] ?? 57);
const lines = generatePiiCorpus({ seed, messages: Number(process.argv[3] ?? 350) });
for (const needle of process.argv.slice(4)) for (const l of lines) { const i = l.text.indexOf(needle); if (i >= 0) console.log(JSON.stringify(l.text.slice(Math.max(0, i - 80), i + needle.length + 30))); }
