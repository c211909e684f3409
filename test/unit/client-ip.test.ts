import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { TrustedProxies, canonicalIp } from "../../src/security/client-ip.ts";

describe("canonicalIp", () => {
  test("strips the IPv4-mapped IPv6 prefix", () => {
    assert.equal(canonicalIp("::ffff:127.0.0.1"), "127.0.0.1");
    assert.equal(canonicalIp("::FFFF:10.1.2.3"), "10.1.2.3");
  });
  test("leaves other addresses alone", () => {
    assert.equal(canonicalIp("2001:db8::1"), "2001:db8::1");
    assert.equal(canonicalIp("192.0.2.1"), "192.0.2.1");
  });
  test("every spelling of an IPv4-mapped address is the IPv4 address", () => {
    for (const mapped of [
      "::ffff:7f00:1",
      "::FFFF:7F00:0001",
      "0:0:0:0:0:ffff:127.0.0.1",
      "0000:0000:0000:0000:0000:ffff:7f00:0001",
    ]) {
      assert.equal(canonicalIp(mapped), "127.0.0.1", mapped);
    }
  });
  test("IPv6 is written one way (RFC 5952): lower case, zeros compressed, no zone", () => {
    assert.equal(canonicalIp("2001:0DB8:0000:0000:0000:0000:0000:0001"), "2001:db8::1");
    assert.equal(canonicalIp("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
    assert.equal(canonicalIp("0:0:0:0:0:0:0:1"), "::1");
    assert.equal(canonicalIp("fe80::1%eth0"), "fe80::1");
  });
  test("IPv4-compatible and NAT64 addresses stay IPv6, one spelling each", () => {
    assert.equal(canonicalIp("::7f00:1"), canonicalIp("::127.0.0.1"));
    assert.notEqual(canonicalIp("::7f00:1"), "127.0.0.1");
    assert.equal(canonicalIp("64:ff9b::192.0.2.1"), "64:ff9b::c000:201");
  });
  test("non-addresses are null", () => {
    for (const bad of [
      "",
      "garbage",
      "[::1]",
      "::1]",
      "1.2.3.4:80",
      "010.0.0.1",
      "1.2.3",
      "1::2::3",
      "fe80::1%",
      " 1.2.3.4",
    ]) {
      assert.equal(canonicalIp(bad), null, bad);
    }
  });
});

describe("TrustedProxies presets", () => {
  test("loopback", () => {
    const t = new TrustedProxies(["loopback"]);
    assert.equal(t.has("127.0.0.1"), true);
    assert.equal(t.has("127.255.0.9"), true);
    assert.equal(t.has("::1"), true);
    assert.equal(t.has("::ffff:127.0.0.1"), true);
    assert.equal(t.has("128.0.0.1"), false);
    assert.equal(t.has("10.0.0.1"), false);
    assert.equal(t.has("::2"), false);
  });

  test("private", () => {
    const t = new TrustedProxies(["private"]);
    for (const ip of [
      "10.0.0.1",
      "10.255.255.255",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "fd00::1",
      "fc00::1",
    ]) {
      assert.equal(t.has(ip), true, ip);
    }
    for (const ip of [
      "172.15.255.255",
      "172.32.0.1",
      "192.169.0.1",
      "11.0.0.1",
      "127.0.0.1",
      "fe80::1",
      "2001:db8::1",
    ]) {
      assert.equal(t.has(ip), false, ip);
    }
  });

  test("linklocal", () => {
    const t = new TrustedProxies(["linklocal"]);
    assert.equal(t.has("169.254.10.20"), true);
    assert.equal(t.has("fe80::1"), true);
    assert.equal(t.has("febf::1"), true);
    assert.equal(t.has("169.255.0.1"), false);
    assert.equal(t.has("fec0::1"), false);
  });

  test("presets combine", () => {
    const t = new TrustedProxies(["loopback", "private"]);
    assert.equal(t.has("127.0.0.1"), true);
    assert.equal(t.has("10.0.0.1"), true);
    assert.equal(t.has("8.8.8.8"), false);
  });
});

describe("TrustedProxies CIDRs and addresses", () => {
  const t = new TrustedProxies(["203.0.113.0/24", "198.51.100.7", "2001:db8::/32"]);

  test("IPv4 CIDR", () => {
    assert.equal(t.has("203.0.113.0"), true);
    assert.equal(t.has("203.0.113.255"), true);
    assert.equal(t.has("203.0.114.0"), false);
  });
  test("bare IPv4 address is a /32", () => {
    assert.equal(t.has("198.51.100.7"), true);
    assert.equal(t.has("198.51.100.8"), false);
  });
  test("IPv6 CIDR", () => {
    assert.equal(t.has("2001:db8:ffff::1"), true);
    assert.equal(t.has("2001:db9::1"), false);
  });
  test("non-addresses are never trusted", () => {
    assert.equal(t.has("not-an-ip"), false);
    assert.equal(t.has(""), false);
  });
  test("an empty list trusts nothing", () => {
    assert.equal(new TrustedProxies([]).has("127.0.0.1"), false);
  });
});

describe("TrustedProxies rejects invalid entries", () => {
  for (const entry of [
    "bogus",
    "10.0.0.0/33",
    "10.0.0.0/-1",
    "10.0.0.0/8.5",
    "::1/129",
    "10.0.0",
    "256.0.0.1",
    "example.com",
    "10.0.0.0/abc",
    "",
  ]) {
    test(JSON.stringify(entry), () => {
      assert.throws(
        () => new TrustedProxies([entry]),
        (err: Error) => err.message.includes(JSON.stringify(entry)),
      );
    });
  }

  test('an empty prefix ("10.0.0.0/") is rejected, not read as /0 (which trusts every IPv4 address)', {}, () => {
    assert.throws(() => new TrustedProxies(["10.0.0.0/"]));
  });

  test('an entry with two prefixes ("10.0.0.0/8/3") is rejected', {}, () => {
    assert.throws(() => new TrustedProxies(["10.0.0.0/8/3"]));
  });
});

describe("clientAddress", () => {
  const t = new TrustedProxies(["loopback", "private"]);

  test("without X-Forwarded-For the peer is the client", () => {
    assert.equal(t.clientAddress("127.0.0.1", undefined), "127.0.0.1");
    assert.equal(t.clientAddress("198.51.100.9", undefined), "198.51.100.9");
    assert.equal(t.clientAddress("10.0.0.1", ""), "10.0.0.1");
  });

  test("a trusted peer's single hop is the client", () => {
    assert.equal(t.clientAddress("127.0.0.1", "198.51.100.1"), "198.51.100.1");
  });

  test("walks right to left past trusted hops to the nearest untrusted one", () => {
    assert.equal(t.clientAddress("127.0.0.1", "198.51.100.1, 10.0.0.2, 192.168.0.3"), "198.51.100.1");
  });

  test("a spoofed leftmost entry is not the client", () => {
    assert.equal(t.clientAddress("127.0.0.1", "203.0.113.66, 198.51.100.1, 10.0.0.2"), "198.51.100.1");
  });

  test("an untrusted peer's X-Forwarded-For is ignored", () => {
    assert.equal(t.clientAddress("198.51.100.50", "203.0.113.66"), "198.51.100.50");
  });

  test("no trusted proxies configured: X-Forwarded-For is ignored", () => {
    assert.equal(new TrustedProxies([]).clientAddress("127.0.0.1", "203.0.113.66"), "127.0.0.1");
  });

  test("a malformed hop reached during the walk falls back to the peer", () => {
    assert.equal(t.clientAddress("127.0.0.1", "garbage"), "127.0.0.1");
    assert.equal(t.clientAddress("127.0.0.1", "garbage, 10.0.0.2"), "127.0.0.1");
    assert.equal(t.clientAddress("127.0.0.1", "198.51.100.1:4711"), "127.0.0.1");
    assert.equal(t.clientAddress("127.0.0.1", "198.51.100.1, , 10.0.0.2"), "127.0.0.1");
    assert.equal(t.clientAddress("127.0.0.1", "[2001:db8::1]"), "127.0.0.1");
  });

  test("a malformed hop beyond the nearest untrusted one does not matter", () => {
    assert.equal(t.clientAddress("127.0.0.1", "garbage, 198.51.100.1, 10.0.0.2"), "198.51.100.1");
  });

  test("all hops trusted: the leftmost is the client", () => {
    assert.equal(t.clientAddress("127.0.0.1", "10.0.0.3, 10.0.0.2"), "10.0.0.3");
  });

  test("IPv4-mapped IPv6 peer is treated as its IPv4 address", () => {
    assert.equal(t.clientAddress("::ffff:127.0.0.1", "198.51.100.1"), "198.51.100.1");
    assert.equal(t.clientAddress("::ffff:198.51.100.50", "203.0.113.66"), "198.51.100.50");
    assert.equal(t.clientAddress("::ffff:127.0.0.1", undefined), "127.0.0.1");
  });

  test("IPv4-mapped hops are canonicalized", () => {
    assert.equal(t.clientAddress("127.0.0.1", "::ffff:198.51.100.1, ::ffff:10.0.0.2"), "198.51.100.1");
  });

  test("IPv6 clients behind an IPv6 loopback proxy", () => {
    assert.equal(t.clientAddress("::1", "2001:db8::42, fd00::1"), "2001:db8::42");
  });

  test("one client key however its address is spelled", () => {
    assert.equal(t.clientAddress("::1", "2001:0DB8:0:0::42"), "2001:db8::42");
    assert.equal(
      t.clientAddress("0:0:0:0:0:0:0:1", "2001:db8::42"),
      "2001:db8::42",
      "the peer's spelling does not matter either",
    );
    assert.equal(t.clientAddress("::ffff:7f00:1", "::ffff:c633:6401"), "198.51.100.1", "hex IPv4-mapped peer and hop");
    assert.equal(t.clientAddress("2001:0DB8::0050", undefined), "2001:db8::50");
  });

  test("trusted IPv6 proxies are recognised in any spelling, and mapped addresses against IPv4 ranges", () => {
    assert.equal(t.clientAddress("::1", "198.51.100.1, 0:0:0:0:0:0:0:1, FD00::0001"), "198.51.100.1");
    assert.equal(t.clientAddress("::1", "198.51.100.1, ::ffff:10.0.0.2"), "198.51.100.1");
  });

  test("malformed IPv6 hops fall back to the peer", () => {
    for (const hop of ["[2001:db8::1]:443", "2001:db8::1::2", "2001:db8::g", "2001:db8::1%"]) {
      assert.equal(t.clientAddress("::1", `198.51.100.1, ${hop}`), "::1", hop);
    }
  });

  test("an empty hop (a trailing comma, a blank header) is malformed", () => {
    assert.equal(t.clientAddress("127.0.0.1", "198.51.100.1,"), "127.0.0.1");
    assert.equal(t.clientAddress("127.0.0.1", " "), "127.0.0.1");
  });

  test("an unparseable peer is its own key", () => {
    assert.equal(t.clientAddress("", "198.51.100.1"), "");
  });
});
