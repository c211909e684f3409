// Which provider a database URL selects, and the SQLite file path it names.
import { isAbsolute, resolve } from "node:path";

export type Provider = "sqlite" | "postgres";

export const providerOf = (url: string): Provider => (/^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite");

/** `file:./x.db` → absolute path (relative paths resolve against the working directory). */
export function sqlitePath(url: string): string {
  const path = url.replace(/^file:/, "");
  return isAbsolute(path) || path === ":memory:" ? path : resolve(process.cwd(), path);
}
