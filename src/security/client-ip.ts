// The client key for rate limits: the peer address, or the nearest untrusted X-Forwarded-For
// hop when the peer is a trusted proxy.
import { BlockList, isIP } from "node:net";

const PRESETS: Record<string, Array<[string, number, "ipv4" | "ipv6"]>> = {
  loopback: [["127.0.0.0", 8, "ipv4"], ["::1", 128, "ipv6"]],
  private: [["10.0.0.0", 8, "ipv4"], ["172.16.0.0", 12, "ipv4"], ["192.168.0.0", 16, "ipv4"], ["fc00::", 7, "ipv6"]],
  linklocal: [["169.254.0.0", 16, "ipv4"], ["fe80::", 10, "ipv6"]],
};

/** Strips the IPv4-mapped IPv6 form (::ffff:1.2.3.4) that dual-stack sockets report. */
export const canonicalIp = (address: string): string => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");

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
      const prefix = prefixText === undefined ? (family === 6 ? 128 : 32) : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
      if (!family || rest.length > 0 || !Number.isInteger(prefix) || prefix > (family === 6 ? 128 : 32)) {
        throw new Error(`"${entry}" is not a CIDR, an address or one of: ${Object.keys(PRESETS).join(", ")}`);
      }
      this.list.addSubnet(net!, prefix, family === 6 ? "ipv6" : "ipv4");
    }
  }

  has(address: string): boolean {
    if (this.empty) return false;
    const ip = canonicalIp(address);
    const family = isIP(ip);
    return family !== 0 && this.list.check(ip, family === 6 ? "ipv6" : "ipv4");
  }

  /** Walks X-Forwarded-For right to left past trusted proxies; malformed hops fall back to the peer. */
  clientAddress(peer: string, forwardedFor: string | undefined): string {
    const peerIp = canonicalIp(peer);
    if (!forwardedFor || !this.has(peerIp)) return peerIp;
    const hops = forwardedFor.split(",").map((hop) => canonicalIp(hop.trim()));
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (!isIP(hop)) return peerIp;
      if (!this.has(hop)) return hop;
    }
    return hops[0] && isIP(hops[0]) ? hops[0] : peerIp;
  }
}
