// Which IP addresses an outbound fetch may connect to. Every fetch to a host named by someone
// other than the operator (an origin being verified, another homeserver's OpenID endpoint, a
// webhook receiver) goes through it, so none becomes a way to reach the service's own host or
// network: only public unicast addresses pass.
//
// The table is IANA's IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
// updates), with multicast, reserved space and the deprecated site-local prefix from the address
// space registries. Every range in it is refused, even those IANA marks globally reachable
// (AS112, AMT, anycast services): none of them is where a web origin or a receiver lives. The
// IPv6 forms that carry an IPv4 address are judged by that address instead (the connection ends
// there), except Teredo (2001::/32), refused outright as part of 2001::/23.
import { BlockList, isIP } from "node:net";

/** A refused range, or (`ipv4At`) one judged by the IPv4 address in its hextets from that index. */
interface Range {
  network: string;
  prefix: number;
  kind: string;
  ipv4At?: number;
}

const range = (cidr: string, kind: string, ipv4At?: number): Range => {
  const [network, prefix] = cidr.split("/") as [string, string];
  return { network, prefix: Number(prefix), kind, ...(ipv4At === undefined ? {} : { ipv4At }) };
};

/** First match decides, so a range comes before any range containing it. */
const IPV4_SPECIAL_PURPOSE: readonly Range[] = [
  range("0.0.0.0/8", "unspecified"),
  range("10.0.0.0/8", "private"),
  range("100.64.0.0/10", "carrier-grade NAT"),
  range("127.0.0.0/8", "loopback"),
  range("169.254.0.0/16", "link-local"),
  range("172.16.0.0/12", "private"),
  range("192.0.0.0/24", "IETF protocol assignments"),
  range("192.0.2.0/24", "documentation"),
  range("192.31.196.0/24", "AS112"),
  range("192.52.193.0/24", "AMT"),
  range("192.88.99.0/24", "6to4 relay anycast"),
  range("192.168.0.0/16", "private"),
  range("192.175.48.0/24", "AS112"),
  range("198.18.0.0/15", "benchmarking"),
  range("198.51.100.0/24", "documentation"),
  range("203.0.113.0/24", "documentation"),
  range("224.0.0.0/4", "multicast"),
  range("255.255.255.255/32", "broadcast"),
  range("240.0.0.0/4", "reserved"),
];

const IPV6_SPECIAL_PURPOSE: readonly Range[] = [
  range("::/128", "unspecified"),
  range("::1/128", "loopback"),
  range("::ffff:0:0/96", "IPv4-mapped", 6),
  range("::ffff:0:0:0/96", "IPv4-translated", 6),
  // Deprecated (RFC 4291), still understood by some stacks as the IPv4 address it carries.
  range("::/96", "IPv4-compatible", 6),
  range("64:ff9b::/96", "NAT64", 6),
  range("64:ff9b:1::/48", "local-use NAT64"),
  range("100::/64", "discard-only"),
  range("100:0:0:1::/64", "dummy prefix"),
  range("2001::/32", "Teredo"),
  range("2001:2::/48", "benchmarking"),
  range("2001:db8::/32", "documentation"),
  range("2001::/23", "IETF protocol assignments"),
  range("2002::/16", "6to4", 1),
  range("2620:4f:8000::/48", "AS112"),
  range("3fff::/20", "documentation"),
  range("5f00::/16", "segment routing"),
  range("fc00::/7", "unique-local"),
  range("fe80::/10", "link-local"),
  range("fec0::/10", "site-local"),
  range("ff00::/8", "multicast"),
];

/** Only 2000::/3 is global unicast space; the rest of IPv6 not named above is unassigned. */
const IPV6_GLOBAL_UNICAST = range("2000::/3", "global unicast");

const compile = (ranges: readonly Range[], family: "ipv4" | "ipv6") =>
  ranges.map((r) => {
    const list = new BlockList();
    list.addSubnet(r.network, r.prefix, family);
    return { ...r, list };
  });

const IPV4 = compile(IPV4_SPECIAL_PURPOSE, "ipv4");
const IPV6 = compile(IPV6_SPECIAL_PURPOSE, "ipv6");
const [GLOBAL_UNICAST] = compile([IPV6_GLOBAL_UNICAST], "ipv6");

/**
 * Why an outbound fetch may not connect to `address` (e.g. "loopback", "6to4 link-local"), or
 * null for a public address. Anything that is not an IP address is refused too.
 */
export function refusedAddress(address: string): string | null {
  const bare = address.replace(/%.*$/, "");
  switch (isIP(bare)) {
    case 4:
      return IPV4.find((r) => r.list.check(bare, "ipv4"))?.kind ?? null;
    case 6: {
      const found = IPV6.find((r) => r.list.check(bare, "ipv6"));
      if (found?.ipv4At !== undefined) {
        const words = hextets(bare);
        const [high, low] = [words[found.ipv4At]!, words[found.ipv4At + 1]!];
        const kind = refusedAddress([high >> 8, high & 0xff, low >> 8, low & 0xff].join("."));
        return kind && `${found.kind} ${kind}`;
      }
      if (found) return found.kind;
      return GLOBAL_UNICAST!.list.check(bare, "ipv6") ? null : "reserved";
    }
    default:
      return "not an IP address";
  }
}

/** The eight 16-bit words of an IPv6 address (the URL parser does the canonicalizing). */
function hextets(address: string): number[] {
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const words = (part: string) => (part ? part.split(":").map((w) => parseInt(w, 16)) : []);
  if (!canonical.includes("::")) return words(canonical);
  const [head, tail] = canonical.split("::") as [string, string];
  const left = words(head);
  const right = words(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
