// The client key for rate limits: the peer address, or the nearest untrusted X-Forwarded-For
// hop when the peer is a trusted proxy.
import { BlockList, SocketAddress, isIP } from "node:net";

const PRESETS: Record<string, Array<[string, number, "ipv4" | "ipv6"]>> = {
  loopback: [
    ["127.0.0.0", 8, "ipv4"],
    ["::1", 128, "ipv6"],
  ],
  private: [
    ["10.0.0.0", 8, "ipv4"],
    ["172.16.0.0", 12, "ipv4"],
    ["192.168.0.0", 16, "ipv4"],
    ["fc00::", 7, "ipv6"],
  ],
  linklocal: [
    ["169.254.0.0", 16, "ipv4"],
    ["fe80::", 10, "ipv6"],
  ],
};

/**
 * One spelling per address, so that it is one rate-limit key: IPv6 in its RFC 5952 form (lower
 * case, zeros compressed, no zone), IPv4-mapped IPv6 in any spelling (::ffff:1.2.3.4,
 * ::ffff:102:304, 0:0:0:0:0:ffff:…) as plain IPv4. Null when `address` is not an address.
 */
export function canonicalIp(address: string): string | null {
  const family = isIP(address);
  if (family === 4) return address;
  if (family === 0) return null;
  const formatted = new SocketAddress({ address, family: "ipv6" }).address;
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(formatted)?.[1] ?? formatted;
}

export class TrustedProxies {
  private readonly list = new BlockList();
  private readonly empty: boolean;

  /** Throws on an entry that is neither a preset nor a CIDR/address. */
  constructor(entries: readonly string[]) {
    this.empty = entries.length === 0;
    for (const entry of entries) {
      const preset = PRESETS[entry];
      if (preset) {
        for (const [net, prefix, family] of preset) this.list.addSubnet(net, prefix, family);
        continue;
      }
      const [net, prefixText, ...rest] = entry.split("/");
      const family = isIP(net ?? "");
      const prefix =
        prefixText === undefined ? (family === 6 ? 128 : 32) : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
      if (!family || rest.length > 0 || !Number.isInteger(prefix) || prefix > (family === 6 ? 128 : 32)) {
        throw new Error(`"${entry}" is not a CIDR, an address or one of: ${Object.keys(PRESETS).join(", ")}`);
      }
      this.list.addSubnet(net!, prefix, family === 6 ? "ipv6" : "ipv4");
    }
  }

  has(address: string): boolean {
    const ip = this.empty ? null : canonicalIp(address);
    return ip !== null && this.list.check(ip, isIP(ip) === 6 ? "ipv6" : "ipv4");
  }

  /**
   * The client key: the peer, or when the peer is a trusted proxy the nearest X-Forwarded-For
   * hop (right to left) that is not one; a malformed hop reached on the way means the header
   * cannot be trusted, so the peer is the key. Hops are canonical, like the peer.
   */
  clientAddress(peer: string, forwardedFor: string | undefined): string {
    const peerIp = canonicalIp(peer) ?? peer;
    if (!forwardedFor || !this.has(peerIp)) return peerIp;
    const hops = forwardedFor.split(",");
    let nearest = peerIp;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = canonicalIp(hops[i]!.trim());
      if (hop === null) return peerIp;
      if (!this.has(hop)) return hop;
      nearest = hop;
    }
    // Every hop is a trusted proxy: the leftmost is as near the client as the header gets.
    return nearest;
  }
}
