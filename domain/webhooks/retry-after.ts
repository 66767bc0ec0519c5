/**
 * Parser of the HTTP `Retry-After` header (RFC 9110 §10.2.3): delta-seconds or an HTTP-date in
 * any of the three formats a recipient must accept (§5.6.7). Pure: `now` is an argument, so the
 * delivery workflow can call it with its deterministic clock.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

// Sun, 06 Nov 1994 08:49:37 GMT
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
// Sunday, 06-Nov-94 08:49:37 GMT
const RFC850_DATE = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
// Sun Nov  6 08:49:37 1994
const ASCTIME_DATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

/**
 * Milliseconds to wait according to `value`, counted from `now`; 0 for a date in the past;
 * `undefined` when the value is not a valid Retry-After.
 */
export function parseRetryAfter(value: string, now: Date): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = parseHttpDate(text, now);
  return at === undefined ? undefined : Math.max(0, at - now.getTime());
}

/** Epoch milliseconds of an HTTP-date, or `undefined` when `text` is not one. */
export function parseHttpDate(text: string, now: Date): number | undefined {
  let m = IMF_FIXDATE.exec(text);
  if (m) return utc(Number(m[3]), m[2], m[1], m[4], m[5], m[6]);
  m = RFC850_DATE.exec(text);
  if (m) return utc(fullYearOf(Number(m[3]), now), m[2], m[1], m[4], m[5], m[6]);
  m = ASCTIME_DATE.exec(text);
  if (m) return utc(Number(m[6]), m[1], m[2], m[3], m[4], m[5]);
  return undefined;
}

/** RFC 9110: a two-digit year more than 50 years ahead is the latest past year with those digits. */
function fullYearOf(twoDigits: number, now: Date): number {
  const thisYear = now.getUTCFullYear();
  const candidate = thisYear - (thisYear % 100) + twoDigits;
  return candidate > thisYear + 50 ? candidate - 100 : candidate;
}

function utc(year: number, month: string, day: string, hh: string, mm: string, ss: string): number | undefined {
  const [d, h, mi, s] = [Number(day), Number(hh), Number(mm), Number(ss)];
  if (h > 23 || mi > 59 || s > 60) return undefined;
  const monthIndex = MONTHS.indexOf(month);
  // A leap second (:60) is read as :59; Date would roll it into the next minute.
  const time = Date.UTC(year, monthIndex, d, h, mi, Math.min(s, 59));
  // Date.UTC silently rolls 31 Feb into March: refuse days the month does not have.
  return new Date(time).getUTCDate() === d ? time : undefined;
}
