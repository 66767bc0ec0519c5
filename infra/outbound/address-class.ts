/**
 * Classification of IP addresses for the SSRF guard of webhook deliveries, after the IANA
 * special-purpose address registries. IPv6 forms that carry an IPv4 address (IPv4-mapped
 * ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d, 6to4 2002:aabb:ccdd::) are judged by that IPv4
 * address, so ::ffff:127.0.0.1 is loopback.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  /** 100.64.0.0/10, carrier-grade NAT; also used by Tailscale and some container networks. */
  | 'shared'
  | 'link_local'
  | 'unspecified'
  | 'multicast'
  /** Documentation, benchmarking, broadcast, future use, deprecated transition ranges... */
  | 'reserved';

/** A BlockList of CIDR ranges (`network/prefix`), each of its address's family. */
function blockList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [network, prefix] = cidr.split('/');
    list.addSubnet(network, Number(prefix), isIPv4(network) ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** Checked in order; the first list that contains the address gives its class. */
const SPECIAL_RANGES: ReadonlyArray<readonly [Exclude<AddressClass, 'public'>, BlockList]> = [
  ['unspecified', blockList(['0.0.0.0/8', '::/128'])],
  ['loopback', blockList(['127.0.0.0/8', '::1/128'])],
  // 64:ff9b:1::/48: local-use NAT64.
  ['private', blockList(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', '64:ff9b:1::/48'])],
  ['shared', blockList(['100.64.0.0/10'])],
  ['link_local', blockList(['169.254.0.0/16', 'fe80::/10'])],
  ['multicast', blockList(['224.0.0.0/4', 'ff00::/8'])],
  [
    'reserved',
    blockList([
      '192.0.0.0/24', // IETF protocol assignments
      '192.0.2.0/24', // documentation
      '192.88.99.0/24', // 6to4 relay anycast (deprecated)
      '198.18.0.0/15', // benchmarking
      '198.51.100.0/24', // documentation
      '203.0.113.0/24', // documentation
      '240.0.0.0/4', // future use, and 255.255.255.255 broadcast
      '2001::/32', // Teredo (embeds an obfuscated IPv4)
      '2001:2::/48', // benchmarking
      '2001:10::/28', // ORCHID (deprecated)
      '2001:20::/28', // ORCHIDv2
      '2001:db8::/32', // documentation
      '3fff::/20', // documentation
    ]),
  ],
];

/** Only 2000::/3 is global unicast; everything else in IPv6 (but the ranges above) is reserved. */
const GLOBAL_UNICAST_V6 = blockList(['2000::/3']);

/** Well-known addresses of cloud instance metadata services (named in refusal messages). */
const CLOUD_METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

/** Class of an IP address literal; throws a TypeError on anything that is not one. */
export function classifyAddress(address: string): AddressClass {
  const ip = withoutZone(address);
  if (isIPv4(ip)) return classifyV4(ip);
  if (!isIPv6(ip)) throw new TypeError(`not an IP address: ${JSON.stringify(address)}`);
  const embedded = embeddedIPv4(ipv6Bytes(ip));
  if (embedded !== undefined) return classifyV4(embedded);
  const special = SPECIAL_RANGES.find(([, list]) => list.check(ip, 'ipv6'));
  if (special) return special[0];
  return GLOBAL_UNICAST_V6.check(ip, 'ipv6') ? 'public' : 'reserved';
}

export function isCloudMetadataAddress(address: string): boolean {
  const ip = withoutZone(address);
  const embedded = isIPv6(ip) ? embeddedIPv4(ipv6Bytes(ip)) : undefined;
  return CLOUD_METADATA.has(embedded ?? canonicalV6(ip));
}

function classifyV4(ip: string): AddressClass {
  const special = SPECIAL_RANGES.find(([, list]) => list.check(ip, 'ipv4'));
  return special ? special[0] : 'public';
}

function withoutZone(address: string): string {
  const percent = address.indexOf('%');
  return percent === -1 ? address : address.slice(0, percent);
}

function canonicalV6(ip: string): string {
  return isIPv6(ip) ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
}

/** The IPv4 address an IPv6 address stands for, when it is one of the forms that embed one. */
function embeddedIPv4(bytes: Uint8Array): string | undefined {
  const startsWith = (prefix: readonly number[]) => prefix.every((byte, i) => bytes[i] === byte);
  const quad = (from: number) => Array.from(bytes.subarray(from, from + 4)).join('.');
  if (startsWith([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])) return quad(12); // ::ffff:0:0/96
  if (startsWith([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return quad(12); // 64:ff9b::/96
  if (startsWith([0x20, 0x02])) return quad(2); // 2002::/16
  return undefined;
}

/** 16 bytes of a valid IPv6 literal (checked by isIPv6 before), trailing dotted quad included. */
function ipv6Bytes(ip: string): Uint8Array {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a, b, c, d] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? [] : new Array<string>(8 - headGroups.length - restGroups.length).fill('0');
  const groups = [...headGroups, ...zeros, ...restGroups];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  return bytes;
}
