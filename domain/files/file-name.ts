// eslint-disable-next-line no-control-regex -- control characters are what this removes
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/**
 * The display name of an uploaded file: the client's file name without any path (some browsers
 * send `C:\fakepath\...`), control characters or surrounding spaces, at most 255 characters.
 * Only ever shown back; the object key never contains it.
 */
export function cleanFileName(raw: string | undefined, fallback = 'upload'): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const name = base.replace(CONTROL_CHARACTERS, '').trim().slice(0, 255);
  return name === '' || name === '.' || name === '..' ? fallback : name;
}
