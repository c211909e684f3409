import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { refusedAddress } from "../../src/features/verification/address-policy.ts";

// Each range by its first and last address, with the neighbours just outside it.
const refused: [string, string][] = [
  ["0.0.0.0", "unspecified"],
  ["0.255.255.255", "unspecified"],
  ["10.0.0.0", "private"],
  ["10.255.255.255", "private"],
  ["100.64.0.0", "carrier-grade NAT"],
  ["100.127.255.255", "carrier-grade NAT"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.255", "loopback"],
  ["169.254.0.0", "link-local"],
  ["169.254.169.254", "link-local"],
  ["169.254.255.255", "link-local"],
  ["172.16.0.0", "private"],
  ["172.31.255.255", "private"],
  ["192.168.0.0", "private"],
  ["192.168.255.255", "private"],
  ["224.0.0.0", "multicast"],
  ["239.255.255.255", "multicast"],
  ["240.0.0.0", "reserved"],
  ["255.255.255.255", "reserved"],
  ["::", "unspecified"],
  ["0:0:0:0:0:0:0:0", "unspecified"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["fc00::", "unique-local"],
  ["fd12:3456:789a::1", "unique-local"],
  ["fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "unique-local"],
  ["fe80::", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "link-local"],
  ["fec0::1", "site-local"],
  ["feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "site-local"],
  ["ff02::1", "multicast"],
  ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "multicast"],
  // An IPv4 address inside IPv6 is judged as that IPv4 address.
  ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
  ["::ffff:7f00:1", "IPv4-mapped loopback"],
  ["0:0:0:0:0:ffff:7f00:0001", "IPv4-mapped loopback"],
  ["::FFFF:10.1.2.3", "IPv4-mapped private"],
  ["::ffff:172.16.0.1", "IPv4-mapped private"],
  ["::ffff:192.168.1.1", "IPv4-mapped private"],
  ["::ffff:169.254.169.254", "IPv4-mapped link-local"],
  ["::ffff:100.64.0.1", "IPv4-mapped carrier-grade NAT"],
  ["::ffff:224.0.0.1", "IPv4-mapped multicast"],
  ["::ffff:0.0.0.0", "IPv4-mapped unspecified"],
  ["::ffff:255.255.255.255", "IPv4-mapped reserved"],
  ["64:ff9b::127.0.0.1", "NAT64 loopback"],
  ["64:ff9b::a00:1", "NAT64 private"],
  ["::127.0.0.1", "IPv4-compatible loopback"],
  ["::10.0.0.1", "IPv4-compatible private"],
  ["::0.0.0.2", "IPv4-compatible unspecified"],
  ["localhost", "not an IP address"],
  ["", "not an IP address"],
  ["127.0.0.1.nip.io", "not an IP address"],
];

const allowed = [
  "1.1.1.1",
  "8.8.8.8",
  "9.255.255.255",
  "11.0.0.0",
  "100.63.255.255",
  "100.128.0.0",
  "126.255.255.255",
  "128.0.0.0",
  "169.253.255.255",
  "169.255.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "192.167.255.255",
  "192.169.0.0",
  "203.0.113.7",
  "223.255.255.255",
  "2001:4860:4860::8888",
  "2606:4700:4700::1111",
  "::2:0:0",
  "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
  "fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
  "::ffff:8.8.8.8",
  "::ffff:100.128.0.1",
  "64:ff9b::8.8.8.8",
  "::8.8.8.8",
];

describe("refusedAddress", () => {
  for (const [address, kind] of refused) {
    test(`${JSON.stringify(address)} is refused as ${kind}`, () => assert.equal(refusedAddress(address), kind));
  }
  for (const address of allowed) {
    test(`${address} is allowed`, () => assert.equal(refusedAddress(address), null));
  }
});
