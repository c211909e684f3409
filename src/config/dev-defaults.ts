// The embedded configuration of `npm start` without a config file: SQLite under .data/, the
// local Synapse on 127.0.0.1:8008, and a demo site. Its secrets are generated once and kept
// in .data/dev-secrets.json, so the homeserver registration stays valid across restarts.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";

export const DEV_DATA_DIR = resolve(process.cwd(), ".data");
export const DEMO_SITE = "demo";
export const DEMO_ORIGIN = "http://localhost:3000";

interface DevSecrets {
  as_token: string;
  hs_token: string;
  operator_token: string;
}

function devSecrets(): DevSecrets {
  const file = resolve(DEV_DATA_DIR, "dev-secrets.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as DevSecrets;
  const token = () => randomBytes(24).toString("base64url");
  const secrets = { as_token: token(), hs_token: token(), operator_token: token() };
  mkdirSync(DEV_DATA_DIR, { recursive: true });
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

/** The dev configuration document (what a TOML file would parse to). */
export function devConfigDocument(): Record<string, unknown> {
  const secrets = devSecrets();
  return {
    server: { listen_host: "127.0.0.1", listen_port: 8080 },
    database: { url: `file:${resolve(DEV_DATA_DIR, "comments.db")}` },
    matrix: {
      homeserver_url: "http://127.0.0.1:8008",
      server_name: "localhost",
      as_token: secrets.as_token,
      hs_token: secrets.hs_token,
      registration_file: resolve(DEV_DATA_DIR, "appservice-registration.yaml"),
    },
    security: { operator_token: secrets.operator_token },
    sites: { [DEMO_SITE]: { origins: [DEMO_ORIGIN, "http://127.0.0.1:3000"] } },
  };
}
