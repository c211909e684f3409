// Name resolution for outbound fetches and origin verification: the system resolver, or the one
// DNS server named by security.dns_resolver (tests run their own on loopback). The pinned
// fetches' address lookups and the TXT query all go through it, so all see the same DNS.
import { promises as dns } from "node:dns";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Per query: a verification or a fetch must not hang on a slow DNS server. */
const QUERY_TIMEOUT_MS = 2000;
const QUERY_TRIES = 2;

export class HostResolver {
  private readonly resolver = new dns.Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });

  /** `server`: "host:port" of the DNS server to ask, or null for the system resolver. */
  constructor(private readonly server: string | null) {
    if (server) this.resolver.setServers([server]);
  }

  /** Every address of `hostname` (IPv4 and IPv6); throws when it has none. */
  async addresses(hostname: string): Promise<ResolvedAddress[]> {
    if (!this.server) {
      // getaddrinfo, as any other program on the host would resolve the name (/etc/hosts too).
      const found = await dns.lookup(hostname, { all: true, verbatim: true });
      return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
    }
    const [v4, v6] = await Promise.allSettled([this.resolver.resolve4(hostname), this.resolver.resolve6(hostname)]);
    const found: ResolvedAddress[] = [
      ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (found.length === 0) throw v4.status === "rejected" ? v4.reason : new Error(`${hostname} has no addresses`);
    return found;
  }

  /** The TXT records at `name`, each one's strings joined. */
  async txt(name: string): Promise<string[]> {
    const records = await this.resolver.resolveTxt(name);
    return records.map((chunks) => chunks.join(""));
  }
}
