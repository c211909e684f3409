// The Matrix names the service owns, all derived from the namespace prefix (default `_service_`).
import { createHash } from "node:crypto";

export class MatrixNames {
  constructor(
    readonly prefix: string,
    readonly serverName: string,
  ) {}

  get botUserId(): string {
    return `@${this.prefix}bot:${this.serverName}`;
  }

  /** A visitor's virtual user on one site: unrelated identities across sites for the same key. */
  visitorLocalpart(siteId: string, publicKey: Uint8Array): string {
    const digest = createHash("sha256")
      .update(siteId, "utf8")
      .update(Buffer.from([0]))
      .update(publicKey)
      .digest("hex");
    return `${this.prefix}v_${digest.slice(0, 32)}`;
  }

  visitorUserId(siteId: string, publicKey: Uint8Array): string {
    return `@${this.visitorLocalpart(siteId, publicKey)}:${this.serverName}`;
  }

  /**
   * The virtual user of an imported author on one site (`authorKey`: the source system and the
   * author's identity there). Outside the visitor namespace: its comments carry no proof.
   */
  importedAuthorLocalpart(siteId: string, authorKey: string): string {
    const digest = createHash("sha256")
      .update(siteId, "utf8")
      .update(Buffer.from([0]))
      .update(authorKey, "utf8");
    return `${this.prefix}i_${digest.digest("hex").slice(0, 32)}`;
  }

  importedAuthorUserId(siteId: string, authorKey: string): string {
    return `@${this.importedAuthorLocalpart(siteId, authorKey)}:${this.serverName}`;
  }

  isVisitorUserId(userId: string): boolean {
    return userId.startsWith(`@${this.prefix}v_`) && userId.endsWith(`:${this.serverName}`);
  }

  spaceAliasLocalpart(siteId: string): string {
    return `${this.prefix}${siteId}`;
  }

  roomAliasLocalpart(siteId: string, pageSlug: string): string {
    return `${this.prefix}${siteId}_${pageSlug}`;
  }

  alias(localpart: string): string {
    return `#${localpart}:${this.serverName}`;
  }
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The appservice registration YAML to hand the homeserver. */
export function registrationYaml(options: {
  id: string;
  url: string;
  asToken: string;
  hsToken: string;
  names: MatrixNames;
}): string {
  const { names } = options;
  const server = escapeRegex(names.serverName);
  const prefix = escapeRegex(names.prefix);
  const quote = (s: string) => JSON.stringify(s);
  return [
    "# Appservice registration for the comment service. Generated from its configuration;",
    "# give this file to the homeserver (Synapse: app_service_config_files).",
    `id: ${quote(options.id)}`,
    `url: ${quote(options.url)}`,
    `as_token: ${quote(options.asToken)}`,
    `hs_token: ${quote(options.hsToken)}`,
    `sender_localpart: ${quote(`${names.prefix}bot`)}`,
    "rate_limited: false",
    "receive_ephemeral: true",
    "de.sorunome.msc2409.push_ephemeral: true",
    "namespaces:",
    "  users:",
    `    - exclusive: true`,
    `      regex: ${quote(`@${prefix}.*:${server}`)}`,
    "  aliases:",
    `    - exclusive: true`,
    `      regex: ${quote(`#${prefix}.*:${server}`)}`,
    "  rooms: []",
    "",
  ].join("\n");
}
