import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, appserviceUrl, buildConfig, parseConfigText } from "../../src/config/config.ts";

const TOKENS = `[matrix]\nas_token = "as-token"\nhs_token = "hs-token"\n`;

const load = (toml: string) => buildConfig(parseConfigText(toml, "test.toml"));

/** Asserts that loading `toml` throws a ConfigError whose message contains every `parts`. */
function rejects(toml: string, ...parts: string[]): void {
  assert.throws(
    () => load(toml),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
      for (const part of parts) assert.ok(err.message.includes(part), `"${err.message}" should contain "${part}"`);
      return true;
    },
  );
}

describe("defaults", () => {
  const config = load(TOKENS);

  test("server", () => {
    assert.deepEqual(config.server, {
      listenHost: "127.0.0.1",
      listenPort: 8080,
      publicBaseUrl: null,
      shutdownTimeoutMs: 10_000,
      trustedProxies: [],
    });
  });
  test("database", () => {
    assert.deepEqual(config.database, {
      url: "file:./.data/comments.db",
      sqliteCacheMb: 32,
      sqliteMmapMb: 2000,
      sqliteReadThreads: 2,
    });
  });
  test("matrix", () => {
    assert.deepEqual(config.matrix, {
      homeserverUrl: "http://127.0.0.1:8008",
      serverName: "localhost",
      asToken: "as-token",
      hsToken: "hs-token",
      appserviceId: "comment-service",
      appserviceUrl: null,
      namespacePrefix: "_service_",
      registrationFile: "./.data/appservice-registration.yaml",
      roomVersion: "12",
      requestTimeoutMs: 30000,
    });
  });
  test("security: PoW difficulty 16 (contract default), no operator token", () => {
    assert.deepEqual(config.security, {
      operatorToken: null,
      allowPrivateVerificationOrigins: false,
      verificationPolicy: "optional",
      powDifficulty: 16,
      dnsResolver: null,
    });
  });
  test("queue", () => {
    assert.deepEqual(config.queue, {
      pollIntervalMs: 250,
      maxAttempts: 8,
      retryBaseMs: 1000,
      concurrency: 8,
      leaseMs: 60000,
    });
  });
  test("rate limits", () => {
    assert.equal(config.rateLimit.enabled, true);
    assert.equal(config.rateLimit.siteRegistration, 10);
    assert.equal(config.rateLimit.sseBurst, 8);
  });
  test("no sites", () => {
    assert.deepEqual(config.sites, []);
  });
  test("appservice URL defaults to the listen address", () => {
    assert.equal(appserviceUrl(config), "http://127.0.0.1:8080");
  });
});

describe("values", () => {
  test("given values override defaults", () => {
    const config = load(`${TOKENS}
[server]
listen_host = "0.0.0.0"
listen_port = 9000
public_base_url = "https://comments.example/"
trusted_proxies = ["loopback", "10.0.0.0/8"]

[security]
pow_difficulty = 20
operator_token = "op"

[rate_limit]
enabled = false
`);
    assert.deepEqual(config.server, {
      listenHost: "0.0.0.0",
      listenPort: 9000,
      publicBaseUrl: "https://comments.example",
      shutdownTimeoutMs: 10_000,
      trustedProxies: ["loopback", "10.0.0.0/8"],
    });
    assert.equal(config.security.powDifficulty, 20);
    assert.equal(config.security.operatorToken, "op");
    assert.equal(config.rateLimit.enabled, false);
    assert.equal(appserviceUrl(config), "http://0.0.0.0:9000");
  });

  test("homeserver URL trailing slash is stripped", () => {
    assert.equal(
      load(`${TOKENS}homeserver_url = "http://synapse:8008/"\n`).matrix.homeserverUrl,
      "http://synapse:8008",
    );
  });

  test("postgres database URL", () => {
    assert.equal(
      load(`${TOKENS}[database]\nurl = "postgresql://u:p@db/comments"\n`).database.url,
      "postgresql://u:p@db/comments",
    );
  });

  test("overrides are applied and validated", () => {
    const doc = parseConfigText(TOKENS, "test.toml");
    assert.equal(buildConfig(doc, { "server.listen_port": 0 }).server.listenPort, 0);
    assert.throws(() => buildConfig(doc, { "server.listen_port": "x" }), /server\.listen_port/);
  });
});

describe("required keys", () => {
  test("missing matrix.as_token", () => {
    rejects(`[matrix]\nhs_token = "h"\n`, "matrix.as_token", "required");
  });
  test("missing matrix.hs_token", () => {
    rejects(`[matrix]\nas_token = "a"\n`, "matrix.hs_token", "required");
  });
  test("empty document", () => {
    rejects("", "matrix.as_token");
  });
});

describe("unknown keys", () => {
  test("typo server.listen_prot is named", () => {
    rejects(`${TOKENS}[server]\nlisten_prot = 8080\n`, "server.listen_prot", "unknown");
  });
  test("unknown section", () => {
    rejects(`${TOKENS}[serverr]\nlisten_port = 8080\n`, "serverr.listen_port");
  });
  test("top-level scalar", () => {
    rejects(`debug = true\n${TOKENS}`, '"debug"');
  });
});

describe("types and ranges", () => {
  test("string for integer names the key", () => {
    rejects(`${TOKENS}[server]\nlisten_port = "8080"\n`, "server.listen_port", "integer");
  });
  test("float for integer", () => {
    rejects(`${TOKENS}[server]\nlisten_port = 80.5\n`, "server.listen_port");
  });
  test("integer for string", () => {
    rejects(`[matrix]\nas_token = 1\nhs_token = "h"\n`, "matrix.as_token", "string");
  });
  test("string for boolean", () => {
    rejects(`${TOKENS}[rate_limit]\nenabled = "yes"\n`, "rate_limit.enabled");
  });
  test("string for string array", () => {
    rejects(`${TOKENS}[server]\ntrusted_proxies = "loopback"\n`, "server.trusted_proxies");
    rejects(`${TOKENS}[server]\ntrusted_proxies = ["loopback", 1]\n`, "server.trusted_proxies");
  });
  test("port above 65535", () => {
    rejects(`${TOKENS}[server]\nlisten_port = 65536\n`, "server.listen_port", "65535");
  });
  test("port 65535 and 0 are in range", () => {
    assert.equal(load(`${TOKENS}[server]\nlisten_port = 65535\n`).server.listenPort, 65535);
    assert.equal(load(`${TOKENS}[server]\nlisten_port = 0\n`).server.listenPort, 0);
  });
  test("negative port", () => {
    rejects(`${TOKENS}[server]\nlisten_port = -1\n`, "server.listen_port", "at least 0");
  });
  test("PoW difficulty 0-32", () => {
    assert.equal(load(`${TOKENS}[security]\npow_difficulty = 32\n`).security.powDifficulty, 32);
    rejects(`${TOKENS}[security]\npow_difficulty = 33\n`, "security.pow_difficulty", "32");
  });
  test("verification policy: optional or strict", () => {
    assert.equal(load(`${TOKENS}[security]\nverification_policy = "strict"\n`).security.verificationPolicy, "strict");
    rejects(
      `${TOKENS}[security]\nverification_policy = "lenient"\n`,
      "security.verification_policy",
      '"optional", "strict"',
    );
  });
  test("queue.max_attempts at least 1", () => {
    rejects(`${TOKENS}[queue]\nmax_attempts = 0\n`, "queue.max_attempts", "at least 1");
  });
  test("non-http URLs", () => {
    rejects(`${TOKENS}[server]\npublic_base_url = "ftp://comments.example"\n`, "server.public_base_url");
    rejects(`${TOKENS}homeserver_url = "synapse:8008"\n`, "matrix.homeserver_url");
  });
  test("unsupported database URL", () => {
    rejects(`${TOKENS}[database]\nurl = "mysql://db/comments"\n`, "database.url");
  });
  test("namespace prefix characters", () => {
    rejects(`${TOKENS}namespace_prefix = "Svc!"\n`, "matrix.namespace_prefix");
  });
});

describe("[sites.<site_id>]", () => {
  test("origins are normalized and deduplicated; secret read", () => {
    const config = load(`${TOKENS}
[sites.my-blog]
origins = ["HTTPS://Blog.Example:443/", "https://blog.example", "http://localhost:3000"]
secret = "site-secret"

[sites.other]
origins = []
`);
    assert.deepEqual(config.sites, [
      {
        siteId: "my-blog",
        origins: ["https://blog.example", "http://localhost:3000"],
        secret: "site-secret",
        pageUrlPattern: null,
        webhooks: [],
      },
      { siteId: "other", origins: [], secret: null, pageUrlPattern: null, webhooks: [] },
    ]);
  });

  test("a site table with no keys", () => {
    assert.deepEqual(load(`${TOKENS}[sites.bare]\n`).sites, [
      { siteId: "bare", origins: [], secret: null, pageUrlPattern: null, webhooks: [] },
    ]);
  });

  test("a site's page URL pattern and declared webhooks are read and checked", () => {
    const secret = `whsec_${Buffer.alloc(32, 1).toString("base64")}`;
    const config = load(`${TOKENS}[sites.blog]
page_url_pattern = "https://blog.example/{page_slug}/"

[sites.blog.webhooks.slack]
url = "https://hooks.example/x"
secret = "${secret}"
events = ["comment.created"]
`);
    assert.deepEqual(config.sites[0], {
      siteId: "blog",
      origins: [],
      secret: null,
      pageUrlPattern: "https://blog.example/{page_slug}/",
      webhooks: [{ name: "slack", url: "https://hooks.example/x", secret, events: ["comment.created"] }],
    });
    rejects(`${TOKENS}[sites.blog]\npage_url_pattern = "https://blog.example/"\n`, "sites.blog.page_url_pattern");
    rejects(
      `${TOKENS}[sites.blog.webhooks.x]\nurl = "https://h.example"\nsecret = "nope"\n`,
      "sites.blog.webhooks.x.secret",
    );
    rejects(
      `${TOKENS}[sites.blog.webhooks.x]\nurl = "https://h.example"\nsecret = "${secret}"\nevents = ["comment.x"]\n`,
      "sites.blog.webhooks.x.events",
    );
    rejects(`${TOKENS}[sites.blog.webhooks.x]\nsecret = "${secret}"\n`, "sites.blog.webhooks.x.url");
  });

  test("invalid site id is named", () => {
    rejects(`${TOKENS}[sites.My_Blog]\norigins = []\n`, "sites.My_Blog");
    rejects(`${TOKENS}[sites."${"a".repeat(65)}"]\n`, `sites.${"a".repeat(65)}`);
  });

  test("bad origin names the key and the value", () => {
    rejects(
      `${TOKENS}[sites.my-blog]\norigins = ["https://blog.example/path"]\n`,
      "sites.my-blog.origins",
      "https://blog.example/path",
    );
    rejects(`${TOKENS}[sites.my-blog]\norigins = ["ftp://blog.example"]\n`, "sites.my-blog.origins");
  });

  test("unknown key inside a site table", () => {
    rejects(`${TOKENS}[sites.my-blog]\norigin = ["https://blog.example"]\n`, "sites.my-blog.origin", "unknown");
  });

  test("wrong type inside a site table", () => {
    rejects(`${TOKENS}[sites.my-blog]\norigins = "https://blog.example"\n`, "sites.my-blog.origins");
    rejects(`${TOKENS}[sites.my-blog]\nsecret = 5\n`, "sites.my-blog.secret");
  });

  test("sites must be tables", () => {
    rejects(`${TOKENS}[sites]\nmy-blog = "x"\n`, "sites.my-blog");
  });

  test("an operator token a bearer header cannot carry is refused, naming the key", () => {
    for (const token of ["with space", "tab\\there", "colon:s", "é-accent"])
      rejects(`${TOKENS}[security]\noperator_token = "${token}"\n`, "security.operator_token", "letters, digits");
    assert.equal(
      buildConfig(parseConfigText(`${TOKENS}[security]\noperator_token = "a-Z_0.9~+/=="\n`, "x.toml")).security
        .operatorToken,
      "a-Z_0.9~+/==",
    );
  });
});

describe("parseConfigText", () => {
  test("returns the parsed document", () => {
    const doc = parseConfigText('[server]\nlisten_port = 1\n[sites.a]\norigins = ["https://a.example"]\n', "x.toml");
    assert.deepEqual(JSON.parse(JSON.stringify(doc)), {
      server: { listen_port: 1 },
      sites: { a: { origins: ["https://a.example"] } },
    });
  });

  test("invalid TOML throws ConfigError naming the source", () => {
    assert.throws(
      () => parseConfigText("[server\nlisten_port = ", "/etc/comments.toml"),
      (err: unknown) => err instanceof ConfigError && err.message.startsWith("/etc/comments.toml: invalid TOML"),
    );
  });

  test("duplicate keys are invalid TOML", () => {
    assert.throws(() => parseConfigText("[server]\nlisten_port = 1\nlisten_port = 2\n", "x.toml"), ConfigError);
  });
});

describe("server.trusted_proxies is validated at load", () => {
  test("an invalid entry names the key", () => {
    const doc = parseConfigText(
      '[matrix]\nas_token = "a"\nhs_token = "h"\n[server]\ntrusted_proxies = ["loopback", "10.0.0.0/"]\n',
      "t.toml",
    );
    assert.throws(
      () => buildConfig(doc),
      (err: Error) =>
        err instanceof ConfigError &&
        err.message.includes("server.trusted_proxies") &&
        err.message.includes("10.0.0.0/"),
    );
  });
});

describe("appservice tokens", () => {
  const load = (as: string, hs: string) => () =>
    buildConfig(parseConfigText(`[matrix]\nas_token = "${as}"\nhs_token = "${hs}"\n`, "t.toml"));
  test("an empty token names its key", () => {
    assert.throws(
      load("", "h"),
      (err: Error) => err instanceof ConfigError && err.message.includes('"matrix.as_token": must not be empty'),
    );
  });
  test("the two tokens must differ", () => {
    assert.throws(
      load("same", "same"),
      (err: Error) => err instanceof ConfigError && err.message.includes("matrix.hs_token"),
    );
  });
});
