// How the service's SQLite connections are sized (database.sqlite_cache_mb, database.sqlite_mmap_mb):
// SQLite's defaults (a 2 MB page cache, no memory map) are for small embedded databases; a read
// model of millions of comments otherwise reads its index pages through read() calls, copied into a
// cache too small to keep them.
/** As the configuration's `database` section has them (config.database). */
export interface SqliteTuning {
  sqliteCacheMb: number;
  sqliteMmapMb: number;
  /** How many threads run the driver's reads, each on a connection of its own (0: on the event loop's thread). */
  sqliteReadThreads: number;
}

/** The pragmas a new connection runs. */
export const sqlitePragmas = (tuning: SqliteTuning): string[] => [
  `cache_size = -${tuning.sqliteCacheMb * 1024}`,
  `mmap_size = ${tuning.sqliteMmapMb * 2 ** 20}`,
];
