/**
 * SSRF guard of webhook destinations (DESIGN.md, Webhooks). A URL must be https, or http to a
 * loopback host when the development setting `allowPrivate` is on; every address the host
 * resolves to must be public (or, with `allowPrivate`, loopback/private/shared). The checked
 * addresses are returned so the caller connects to them and nowhere else (no second DNS lookup
 * that a rebinding attacker could answer differently).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type AddressClass, classifyAddress, isCloudMetadataAddress } from './address-class';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** The resolver boundary: tests replace it, production uses the system resolver. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export interface DestinationPolicy {
  /** Development setting: allows http to loopback and non-public unicast destinations. */
  allowPrivate: boolean;
}

/** Classes a destination may have only with `allowPrivate`; every other non-public class is always refused. */
const DEVELOPMENT_CLASSES: ReadonlySet<AddressClass> = new Set(['loopback', 'private', 'shared']);

export type UrlCheck = { kind: 'ok'; url: URL; hostname: string } | { kind: 'refused'; reason: string };

export type DestinationCheck =
  | { kind: 'allowed'; url: URL; hostname: string; addresses: ResolvedAddress[] }
  | { kind: 'refused'; reason: string }
  /** The host did not resolve: a connection failure, not a policy decision. */
  | { kind: 'unresolved'; message: string };

/**
 * The rules a URL must follow before any resolution: usable when a webhook is created or
 * updated. IP literals are judged here; host names only at delivery time.
 */
export function checkWebhookUrl(rawUrl: string, policy: DestinationPolicy): UrlCheck {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { kind: 'refused', reason: 'not a valid absolute URL' };
  }
  if (url.username !== '' || url.password !== '') return { kind: 'refused', reason: 'credentials in the URL are not allowed' };
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (url.protocol === 'http:') {
    if (!policy.allowPrivate) return { kind: 'refused', reason: 'the URL must use https' };
    if (!isLoopbackName(hostname)) return { kind: 'refused', reason: 'http is allowed only to a loopback host' };
  } else if (url.protocol !== 'https:') {
    return { kind: 'refused', reason: 'the URL must use https' };
  }
  if (isIP(hostname) !== 0) {
    const refusal = refusalOf(hostname, policy);
    if (refusal !== undefined) return { kind: 'refused', reason: `the host is ${refusal}` };
  }
  return { kind: 'ok', url, hostname };
}

/** URL rules, then resolution of the host and the check of every resolved address. */
export async function checkDestination(rawUrl: string, options: DestinationPolicy & { resolver: Resolver }): Promise<DestinationCheck> {
  const checked = checkWebhookUrl(rawUrl, options);
  if (checked.kind === 'refused') return checked;
  const { url, hostname } = checked;

  let addresses: ResolvedAddress[];
  if (isIP(hostname) !== 0) {
    addresses = [{ address: hostname, family: isIP(hostname) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await options.resolver(hostname);
    } catch (error) {
      return { kind: 'unresolved', message: `cannot resolve ${hostname}: ${errorText(error)}` };
    }
    if (addresses.length === 0) return { kind: 'unresolved', message: `cannot resolve ${hostname}: no address` };
  }

  for (const { address } of addresses) {
    const refusal = refusalOf(address, options);
    if (refusal !== undefined) return { kind: 'refused', reason: `${hostname} resolves to ${refusal}` };
    // http was allowed for a loopback name; it must not lead anywhere else.
    if (url.protocol === 'http:' && classOf(address) !== 'loopback') {
      return { kind: 'refused', reason: `${hostname} resolves to ${address}, which is not loopback (http)` };
    }
  }
  return { kind: 'allowed', url, hostname, addresses };
}

/** Why `address` may not be a destination, or undefined when it may. */
function refusalOf(address: string, policy: DestinationPolicy): string | undefined {
  const addressClass = classOf(address);
  if (addressClass === 'invalid') return `${address}, which is not an IP address`;
  if (addressClass === 'public') return undefined;
  if (policy.allowPrivate && DEVELOPMENT_CLASSES.has(addressClass)) return undefined;
  const label = isCloudMetadataAddress(address) ? 'a cloud metadata address' : `a ${addressClass.replace('_', '-')} address`;
  return `${address}, ${label}`;
}

function classOf(address: string): AddressClass | 'invalid' {
  try {
    return classifyAddress(address);
  } catch {
    return 'invalid';
  }
}

/** `localhost`, `*.localhost` (RFC 6761) or a loopback IP literal. */
function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return isIP(name) !== 0 && classOf(name) === 'loopback';
}

function errorText(error: unknown): string {
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ?? error.message;
  return String(error);
}
