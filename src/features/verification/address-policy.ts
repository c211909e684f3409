// Which IP addresses origin verification may connect to. The origin is named by whoever holds
// a claim token, so the well-known fetch must not become a way to reach the service's own host
// or network: only public unicast addresses pass.
import { BlockList, isIP } from "node:net";

type Range = [kind: string, network: string, prefix: number];

const IPV4_RANGES: Range[] = [
  ["unspecified", "0.0.0.0", 8],
  ["private", "10.0.0.0", 8],
  ["carrier-grade NAT", "100.64.0.0", 10],
  ["loopback", "127.0.0.0", 8],
  ["link-local", "169.254.0.0", 16],
  ["private", "172.16.0.0", 12],
  ["private", "192.168.0.0", 16],
  ["multicast", "224.0.0.0", 4],
  // Reserved for future use, and the limited broadcast address 255.255.255.255.
  ["reserved", "240.0.0.0", 4],
];

const IPV6_RANGES: Range[] = [
  ["unspecified", "::", 128],
  ["loopback", "::1", 128],
  ["unique-local", "fc00::", 7],
  ["link-local", "fe80::", 10],
  // Deprecated, but still routed privately where it is in use.
  ["site-local", "fec0::", 10],
  ["multicast", "ff00::", 8],
];

/** IPv6 forms that carry an IPv4 address in their last 32 bits, which is where they lead. */
const IPV4_EMBEDDINGS: [form: string, prefix: number[]][] = [
  ["IPv4-mapped", [0, 0, 0, 0, 0, 0xffff]],
  ["NAT64", [0x64, 0xff9b, 0, 0, 0, 0]],
  ["IPv4-compatible", [0, 0, 0, 0, 0, 0]],
];

const compile = (ranges: Range[], family: "ipv4" | "ipv6") =>
  ranges.map(([kind, network, prefix]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { kind, list };
  });

const IPV4 = compile(IPV4_RANGES, "ipv4");
const IPV6 = compile(IPV6_RANGES, "ipv6");

/**
 * Why verification may not connect to `address` (e.g. "loopback", "IPv4-mapped private"),
 * or null for a public address. Anything that is not an IP address is refused too.
 */
export function refusedAddress(address: string): string | null {
  const bare = address.replace(/%.*$/, "");
  switch (isIP(bare)) {
    case 4:
      return IPV4.find((r) => r.list.check(bare, "ipv4"))?.kind ?? null;
    case 6: {
      const own = IPV6.find((r) => r.list.check(bare, "ipv6"));
      if (own) return own.kind;
      const words = hextets(bare);
      for (const [form, prefix] of IPV4_EMBEDDINGS) {
        if (prefix.every((w, i) => words[i] === w)) {
          const v4 = [words[6]! >> 8, words[6]! & 0xff, words[7]! >> 8, words[7]! & 0xff].join(".");
          const kind = refusedAddress(v4);
          return kind && `${form} ${kind}`;
        }
      }
      return null;
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
