/**
 * URLs as spans may record them: a URL can carry a credential in its query (the WhatsApp verify
 * token, a subject export's signature, a presigned URL's `X-Amz-Signature`, a tenant's
 * `?token=` webhook), in its path (a chat service's webhook `/services/T0/B0/<token>`) or in its
 * userinfo. So every query value becomes `REDACTED` (the names stay, to tell calls apart), a path
 * segment that looks like a token (20 or more letters, digits and `-_.~%+=`, with a letter and a
 * digit, and not a UUID: ids are what the routes carry) becomes `REDACTED`, and userinfo and
 * fragment go. Plain string steps, linear in the URL's length.
 */
export const REDACTED = 'REDACTED';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOKEN_CHARACTERS = /^[A-Za-z0-9\-_.~%+=]+$/;
const MIN_TOKEN_LENGTH = 20;

function looksLikeToken(segment: string): boolean {
  return segment.length >= MIN_TOKEN_LENGTH && TOKEN_CHARACTERS.test(segment) && /[A-Za-z]/.test(segment) && /\d/.test(segment) && !UUID.test(segment);
}

function redactPath(path: string): string {
  return path
    .split('/')
    .map((segment) => (looksLikeToken(segment) ? REDACTED : segment))
    .join('/');
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? pair : `${pair.slice(0, eq)}=${REDACTED}`;
    })
    .join('&');
}

/**
 * The URL without what may be a credential; takes a full URL (`https://user:pw@host/p?q`), a path
 * with its query (`/p?q`) or a query alone (`?q`), as the HTTP semantic conventions record them.
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const withoutFragment = hash < 0 ? url : url.slice(0, hash);
  const mark = withoutFragment.indexOf('?');
  const beforeQuery = mark < 0 ? withoutFragment : withoutFragment.slice(0, mark);
  const query = mark < 0 ? null : withoutFragment.slice(mark + 1);
  let origin = '';
  let path = beforeQuery;
  const scheme = beforeQuery.indexOf('://');
  if (scheme >= 0) {
    const pathStart = beforeQuery.indexOf('/', scheme + 3);
    const authority = beforeQuery.slice(scheme + 3, pathStart < 0 ? undefined : pathStart);
    origin = `${beforeQuery.slice(0, scheme + 3)}${authority.slice(authority.lastIndexOf('@') + 1)}`;
    path = pathStart < 0 ? '' : beforeQuery.slice(pathStart);
  }
  return `${origin}${redactPath(path)}${query === null ? '' : `?${redactQuery(query)}`}`;
}

/** The span attributes of the HTTP semantic conventions (old and stable) that hold a URL or part of one. */
export const URL_ATTRIBUTES = ['http.url', 'http.target', 'url.full', 'url.path', 'url.query'] as const;

/**
 * One of URL_ATTRIBUTES without what may be a credential: the stable conventions record the path
 * (`url.path`) and the query without its `?` (`url.query`) apart from each other.
 */
export function redactUrlAttribute(key: (typeof URL_ATTRIBUTES)[number], value: string): string {
  if (key === 'url.query') return redactQuery(value);
  if (key === 'url.path') return redactPath(value);
  return redactUrl(value);
}
