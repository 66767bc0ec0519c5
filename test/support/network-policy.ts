/**
 * What a set of NetworkPolicies allows, as the Kubernetes semantics define it: a pod selected by
 * no policy of a direction is open in that direction; a selected one admits only what some rule
 * of a selecting policy allows (the rules add up). Peers are addresses (ipBlock, with its
 * exceptions) or, for destinations inside the cluster, a namespace's labels. Enough to check the
 * rules of deploy/k8s, not a full implementation (no pod selectors in peers, no endPort).
 */
import { BlockList, isIP } from 'node:net';
import type { Manifest } from './kubernetes-manifests';

export interface Peer {
  /** An address outside or inside the cluster. */
  ip?: string;
  /** For a pod inside the cluster: its namespace's labels. */
  namespaceLabels?: Record<string, string>;
}

export interface Traffic {
  /** The labels of the pod the policies protect (the receiver for ingress, the sender for egress). */
  pod: Record<string, string>;
  /** Its container ports by name, for rules that name a port. */
  podPorts?: Record<string, number>;
  direction: 'Ingress' | 'Egress';
  peer: Peer;
  port: number;
  protocol?: 'TCP' | 'UDP';
}

type Selector = { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
type PolicyPeer = { ipBlock?: { cidr: string; except?: string[] }; namespaceSelector?: Selector; podSelector?: Selector };
type Rule = { ports?: { protocol?: string; port?: number | string }[]; from?: PolicyPeer[]; to?: PolicyPeer[] };

export function selects(selector: Selector | undefined, labels: Record<string, string>): boolean {
  if (selector?.matchExpressions?.length) throw new Error('matchExpressions are not evaluated here');
  return Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

function family(ip: string): 'ipv4' | 'ipv6' {
  return isIP(ip) === 6 ? 'ipv6' : 'ipv4';
}

function inCidr(ip: string, cidr: string): boolean {
  const [network, bits] = cidr.split('/') as [string, string];
  if (family(network) !== family(ip)) return false;
  const list = new BlockList();
  list.addSubnet(network, Number(bits), family(network));
  return list.check(ip, family(ip));
}

function peerMatches(peer: PolicyPeer, target: Peer): boolean {
  if (peer.ipBlock) {
    if (!target.ip) return false;
    return inCidr(target.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((cidr) => inCidr(target.ip!, cidr));
  }
  if (peer.podSelector && Object.keys(peer.podSelector.matchLabels ?? {}).length) throw new Error('pod selectors in peers are not evaluated here');
  // A namespace selector: pods of the namespaces it selects (never a bare address).
  if (peer.namespaceSelector) return target.namespaceLabels !== undefined && selects(peer.namespaceSelector, target.namespaceLabels);
  return false;
}

function portMatches(rule: Rule, traffic: Traffic): boolean {
  if (!rule.ports?.length) return true;
  return rule.ports.some((p) => {
    if ((p.protocol ?? 'TCP') !== (traffic.protocol ?? 'TCP')) return false;
    if (p.port === undefined) return true;
    const port = typeof p.port === 'string' ? traffic.podPorts?.[p.port] : p.port;
    return port === traffic.port;
  });
}

export function allowed(policies: Manifest[], traffic: Traffic): boolean {
  const selecting = policies.filter(
    (p) => p.kind === 'NetworkPolicy' && (p.spec.policyTypes as string[]).includes(traffic.direction) && selects(p.spec.podSelector as Selector, traffic.pod),
  );
  if (!selecting.length) return true;
  const key = traffic.direction === 'Ingress' ? 'ingress' : 'egress';
  return selecting.some((p) =>
    ((p.spec[key] ?? []) as Rule[]).some((rule) => {
      const peers = traffic.direction === 'Ingress' ? rule.from : rule.to;
      return portMatches(rule, traffic) && (!peers?.length || peers.some((peer) => peerMatches(peer, traffic.peer)));
    }),
  );
}
