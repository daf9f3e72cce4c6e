import { isIP } from 'node:net';

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

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

function v4Blocked(ip: string): boolean {
  const n = ipv4ToInt(ip);
  return V4_BLOCKED.some(([net, bits]) => {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return (n & mask) >>> 0 === (ipv4ToInt(net) & mask) >>> 0;
  });
}

/** Expands an IPv6 address to its 8 groups (numbers), handling `::` and an embedded IPv4 tail. */
function v6Groups(ip: string): number[] | undefined {
  let s = ip.toLowerCase().replace(/%.*$/, '');
  const v4 = s.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    const n = ipv4ToInt(v4[1]);
    s = s.slice(0, -v4[1].length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const missing = 8 - h.length - t.length;
  if (tail === undefined && missing !== 0) return undefined;
  const groups = [...h, ...Array(Math.max(0, missing)).fill('0'), ...t].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) ? groups : undefined;
}

/** True when an IP address (v4 or v6) is one we must never post callbacks to. */
export function isNonPublicAddress(ip: string): boolean {
  const family = isIP(ip.replace(/^\[|\]$/g, ''));
  const bare = ip.replace(/^\[|\]$/g, '');
  if (family === 4) return v4Blocked(bare);
  if (family !== 6) return true;
  const g = v6Groups(bare);
  if (!g) return true;
  if (g.every((x) => x === 0)) return true; // ::
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true; // ::1 loopback
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible addresses: judge the IPv4 inside.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    return v4Blocked(`${g[6] >> 8}.${g[6] & 0xff}.${g[7] >> 8}.${g[7] & 0xff}`);
  }
  if ((g[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g[0] & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0] & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((g[0] & 0xff00) === 0xff00) return true; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (g[0] === 0x0064 && g[1] === 0xff9b) return true; // NAT64 can reach IPv4 private ranges
  return false;
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
