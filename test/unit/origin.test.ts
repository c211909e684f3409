import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { normalizeOrigin } from "../../src/security/origin.ts";

describe("normalizeOrigin", () => {
  const accepted: Array<[string, string]> = [
    ["https://blog.example", "https://blog.example"],
    ["https://blog.example/", "https://blog.example"],
    ["https://blog.example:443", "https://blog.example"],
    ["http://blog.example:80", "http://blog.example"],
    ["https://blog.example:80", "https://blog.example:80"],
    ["http://blog.example:443", "http://blog.example:443"],
    ["http://localhost:3000", "http://localhost:3000"],
    ["https://Blog.EXAMPLE", "https://blog.example"],
    ["HTTPS://BLOG.EXAMPLE:443/", "https://blog.example"],
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080"],
    ["http://[::1]:8080", "http://[::1]:8080"],
    ["https://xn--bcher-kva.example", "https://xn--bcher-kva.example"],
    ["https://bücher.example", "https://xn--bcher-kva.example"],
  ];
  for (const [input, expected] of accepted) {
    test(`${input} -> ${expected}`, () => {
      assert.equal(normalizeOrigin(input), expected);
    });
  }

  const rejected: Array<[string, string]> = [
    ["path", "https://blog.example/path"],
    ["path with trailing slash", "https://blog.example/path/"],
    ["double slash path", "https://blog.example//"],
    ["dot segment", "https://blog.example/."],
    ["query", "https://blog.example/?a=1"],
    ["query without slash", "https://blog.example?a=1"],
    ["fragment", "https://blog.example/#top"],
    ["userinfo", "https://user@blog.example"],
    ["userinfo with password", "https://user:pw@blog.example"],
    ["ftp scheme", "ftp://blog.example"],
    ["ws scheme", "wss://blog.example"],
    ["file scheme", "file:///etc/passwd"],
    ["javascript scheme", "javascript:alert(1)"],
    ["data scheme", "data:text/plain,hi"],
    ["no scheme", "blog.example"],
    ["scheme-relative", "//blog.example"],
    ["empty", ""],
    ["null origin", "null"],
    ["space in host", "https://blog example"],
  ];
  for (const [name, input] of rejected) {
    test(`rejects ${name}: ${JSON.stringify(input)}`, () => {
      assert.equal(normalizeOrigin(input), null);
    });
  }
});
