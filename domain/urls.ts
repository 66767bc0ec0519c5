/**
 * A base URL without its trailing slashes, so a path can be appended with one: the one place that
 * trims them. In linear time (the lookbehind lets a run of slashes be tried from its first only).
 */
export function withoutTrailingSlashes(url: string): string {
  return url.replace(/(?<!\/)\/+$/, '');
}
