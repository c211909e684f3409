// A [sites.<id>] table as the configuration file declares it, for an operator to paste into
// the file. Written by the TOML library the loader (config.ts) parses with, so any origin or
// secret string survives the round trip.
import { stringify } from "smol-toml";
import type { SiteDeclaration } from "./config.ts";

export function siteDeclarationToml(declaration: SiteDeclaration): string {
  const table = {
    origins: declaration.origins,
    ...(declaration.secret ? { secret: declaration.secret } : {}),
    ...(declaration.pageUrlPattern ? { page_url_pattern: declaration.pageUrlPattern } : {}),
  };
  return stringify({ sites: { [declaration.siteId]: table } });
}
