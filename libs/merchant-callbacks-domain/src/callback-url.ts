import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where we may post a merchant's callbacks. Outside local development a callback URL must be
 * https (the body and signature must not travel in clear text) and must not point at our own
 * network: private, loopback, link-local, unique-local and other non-public ranges are refused,
 * so a shop cannot make our servers call internal services (SSRF).
 */
export interface CallbackUrlPolicy {
  /** Local development only: allow http and non-public addresses (the test receiver on 127.0.0.1). */
  allowInsecure: boolean;
}

/**
 * The only range of ipaddr.js's maintained IANA special-purpose list that is the public internet.
 * Everything else is refused: private, loopback, link-local, unique-local, carrier-grade NAT,
 * benchmarking, documentation, multicast, and the IPv6 transition ranges (6to4 2002::/16, Teredo
 * 2001::/32, NAT64 64:ff9b::/96) that a relay could turn into an internal IPv4 destination.
 */
const PUBLIC_RANGE = 'unicast';

/** IPv6 global unicast (RFC 4291): every public IPv6 address is in it. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** True when an IP address (v4 or v6, bracketed or with a zone) is one we must never post callbacks to. */
export function isNonPublicAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return true;
  let address = ipaddr.parse(bare);
  // IPv4-mapped (::ffff:a.b.c.d, ::ffff:0:0/96): the IPv4 inside is where the packet goes.
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress())
    address = (address as ipaddr.IPv6).toIPv4Address();
  // IPv6 outside global unicast 2000::/3 is reserved, whatever ipaddr.js calls it: notably
  // IPv4-compatible ::a.b.c.d (::/96, deprecated), which it classifies unicast and which a stack
  // may still send to the IPv4 inside (::7f00:1 is 127.0.0.1).
  if (address.kind() === 'ipv6' && !address.match(GLOBAL_UNICAST)) return true;
  return address.range() !== PUBLIC_RANGE;
}

const LOCAL_NAMES = /(^|\.)(localhost|localdomain|local|internal)\.?$/i;

/** Why a callback URL is refused, or undefined when it is acceptable. The message names no field. */
export function callbackUrlProblem(url: string, policy: CallbackUrlPolicy): string | undefined {
  if (url.length > 2048) return 'must be at most 2048 characters';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && !(policy.allowInsecure && parsed.protocol === 'http:')) {
    return policy.allowInsecure ? 'must be an http or https URL' : 'must be an https URL';
  }
  if (parsed.username || parsed.password) return 'must not contain credentials';
  if (!parsed.hostname) return 'must name a host';
  if (policy.allowInsecure) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0)
    return isNonPublicAddress(host)
      ? 'must not point at a private, loopback, link-local or unique-local address'
      : undefined;
  if (LOCAL_NAMES.test(host) || !host.includes('.')) return 'must not point at a local host name';
  return undefined;
}
