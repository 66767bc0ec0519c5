import { randomBytes, scrypt as scryptCb, timingSafeEqual, ScryptOptions } from 'node:crypto';

/**
 * Passwords are hashed with scrypt (a memory-hard KDF), parameters stored with the hash so they
 * can be raised later without invalidating existing users: a login with the right password
 * rehashes a hash of weaker parameters (services/auth.ts). Format: scrypt$N$r$p$salt$hash (base64).
 */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** The OWASP Password Storage Cheat Sheet's figure: 128 MiB and about a second of one core per hash here. */
export const OWASP_SCRYPT: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };
const KEY_LENGTH = 64;

/**
 * The parameters new hashes get: OWASP's unless the process was configured otherwise at start
 * (only the test stack does, `TEST_SCRYPT_LOG2_N`; infra/config.ts refuses it elsewhere).
 */
let target: ScryptParams = OWASP_SCRYPT;

export function setPasswordHashParams(params: ScryptParams): void {
  target = params;
}

/** scrypt needs 128·N·r bytes; Node refuses more than `maxmem` (32 MiB by default), so allow it with some room. */
function scrypt(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return new Promise((resolve, reject) => scryptCb(password, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string, params: ScryptParams = target): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

function paramsOf(stored: string): (ScryptParams & { salt: string; hash: string }) | null {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !salt || !hash || !Object.values(params).every((v) => Number.isInteger(v) && v > 0)) return null;
  return { ...params, salt, hash };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = paramsOf(stored);
  if (!parsed) return false;
  const expected = Buffer.from(parsed.hash, 'base64');
  const actual = await scrypt(password, Buffer.from(parsed.salt, 'base64'), parsed);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A stored hash weaker than what new hashes get: rehash it at the next login with the right password. */
export function needsRehash(stored: string): boolean {
  const parsed = paramsOf(stored);
  return parsed !== null && (parsed.N < target.N || parsed.r < target.r || parsed.p < target.p);
}

/**
 * A hash of a random password at the current parameters: verifying against it costs the same as
 * a real one, so a login for an unknown email takes as long as a wrong password. Made on first
 * use (after the process set its parameters), once per parameter set.
 */
const dummyHashes = new Map<string, Promise<string>>();
export function dummyHash(): Promise<string> {
  const key = `${target.N}$${target.r}$${target.p}`;
  let hash = dummyHashes.get(key);
  if (!hash) {
    hash = hashPassword(randomBytes(16).toString('hex'));
    dummyHashes.set(key, hash);
  }
  return hash;
}

export const PASSWORD_MIN_LENGTH = 12;
/** The longest password POST /auth/login takes: a longer one could never sign in. */
export const PASSWORD_MAX_LENGTH = 200;
