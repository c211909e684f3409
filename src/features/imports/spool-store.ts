// The spool: an import file's records, parsed once into a temporary SQLite file before anything
// is sent. It is what lets a file of any size be imported with bounded memory (pages are read
// back one at a time, their comments in time order, in batches) and a malformed file be refused
// before its first comment is sent. Deleted with the run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { SkipReason, SourceRecord } from "./records.ts";

/** A spooled comment as the sending reads it: the author's name resolved. */
export interface SpooledComment {
  seq: number;
  id: string;
  parentId: string | null;
  authorKey: string;
  authorName: string;
  createdAt: number;
  format: "html" | "text";
  body: string;
  skip: SkipReason | null;
  pinned: boolean;
}

const BATCH_ROWS = 2_000;
const READ_ROWS = 500;

export class Spool {
  private readonly dir: string;
  private readonly db: Database.Database;
  private pending: SourceRecord[] = [];
  private readonly insert: (records: SourceRecord[]) => void;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), "comment-import-"));
    this.db = new Database(join(this.dir, "spool.sqlite"));
    this.db.pragma("journal_mode = OFF");
    this.db.pragma("synchronous = OFF");
    this.db.exec(`
      CREATE TABLE pages (key TEXT PRIMARY KEY, url TEXT, identifier TEXT, title TEXT, slug TEXT);
      CREATE TABLE comments (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, page_key TEXT NOT NULL,
        parent_id TEXT, author_key TEXT NOT NULL, author_name TEXT, created_at INTEGER NOT NULL,
        format TEXT NOT NULL, body TEXT NOT NULL, skip TEXT, pinned INTEGER NOT NULL);
      CREATE TABLE authors (key TEXT PRIMARY KEY, name TEXT NOT NULL);`);
    const page = this.db.prepare(
      "INSERT INTO pages (key, url, identifier, title) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET url = excluded.url, identifier = excluded.identifier, title = excluded.title",
    );
    // A comment listed twice keeps its place (seq) and takes the later record's fields.
    const comment =
      this.db.prepare(`INSERT INTO comments (id, page_key, parent_id, author_key, author_name, created_at, format, body, skip, pinned)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET page_key = excluded.page_key,
      parent_id = excluded.parent_id, author_key = excluded.author_key, author_name = excluded.author_name,
      created_at = excluded.created_at, format = excluded.format, body = excluded.body, skip = excluded.skip, pinned = excluded.pinned`);
    const author = this.db.prepare(
      "INSERT INTO authors (key, name) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET name = excluded.name",
    );
    this.insert = this.db.transaction((records: SourceRecord[]) => {
      for (const record of records) {
        if (record.kind === "page") {
          const p = record.page;
          page.run(p.key, p.url, p.identifier, p.title);
        } else if (record.kind === "author") author.run(record.author.key, record.author.name);
        else {
          const c = record.comment;
          comment.run(
            c.id,
            c.pageKey,
            c.parentId,
            c.authorKey,
            c.authorName,
            c.createdAt,
            c.format,
            c.body,
            c.skip,
            c.pinned ? 1 : 0,
          );
        }
      }
    });
  }

  add(record: SourceRecord): void {
    this.pending.push(record);
    if (this.pending.length >= BATCH_ROWS) this.flush();
  }

  /** Writes what is buffered; call once the file is read. */
  flush(): void {
    this.insert(this.pending);
    this.pending = [];
  }

  /** The source pages, a batch at a time (for mapping them to slugs). */
  *pages(): Generator<{ key: string; url: string | null; identifier: string | null; title: string | null }> {
    for (let after = ""; ; ) {
      const rows = this.db
        .prepare("SELECT key, url, identifier, title FROM pages WHERE key > ? ORDER BY key LIMIT ?")
        .all(after, READ_ROWS) as Array<{
        key: string;
        url: string | null;
        identifier: string | null;
        title: string | null;
      }>;
      yield* rows;
      if (rows.length < READ_ROWS) return;
      after = rows[rows.length - 1]!.key;
    }
  }

  setSlug(key: string, slug: string | null): void {
    this.db.prepare("UPDATE pages SET slug = ? WHERE key = ?").run(slug, key);
  }

  /** The target pages with their comment counts, by slug; then the comments no mapped page holds. */
  plan(): { pages: Array<{ slug: string; comments: number }>; unplaced: number } {
    this.db.exec(
      "CREATE INDEX IF NOT EXISTS pages_slug ON pages (slug); CREATE INDEX IF NOT EXISTS comments_page ON comments (page_key, created_at, seq)",
    );
    const pages = this.db
      .prepare(
        "SELECT p.slug AS slug, count(*) AS comments FROM comments c JOIN pages p ON p.key = c.page_key WHERE p.slug IS NOT NULL GROUP BY p.slug ORDER BY p.slug",
      )
      .all() as Array<{ slug: string; comments: number }>;
    const { unplaced } = this.db
      .prepare(
        "SELECT count(*) AS unplaced FROM comments c LEFT JOIN pages p ON p.key = c.page_key WHERE p.slug IS NULL",
      )
      .get() as { unplaced: number };
    return { pages, unplaced };
  }

  /** Ids of comments no mapped page holds (the first `limit`). */
  unplacedIds(limit: number): string[] {
    return (
      this.db
        .prepare(
          "SELECT c.id AS id FROM comments c LEFT JOIN pages p ON p.key = c.page_key WHERE p.slug IS NULL LIMIT ?",
        )
        .all(limit) as Array<{ id: string }>
    ).map((r) => r.id);
  }

  /** A page's comments in time order (then file order), read in batches. */
  *pageComments(slug: string): Generator<SpooledComment> {
    const statement =
      this.db.prepare(`SELECT c.seq AS seq, c.id AS id, c.parent_id AS parentId, c.author_key AS authorKey,
        coalesce(c.author_name, a.name, 'Anonymous') AS authorName, c.created_at AS createdAt, c.format AS format,
        c.body AS body, c.skip AS skip, c.pinned AS pinned
      FROM comments c JOIN pages p ON p.key = c.page_key LEFT JOIN authors a ON a.key = c.author_key
      WHERE p.slug = ? AND (c.created_at > ? OR (c.created_at = ? AND c.seq > ?))
      ORDER BY c.created_at, c.seq LIMIT ?`);
    for (let at = Number.MIN_SAFE_INTEGER, seq = 0; ; ) {
      const rows = statement.all(slug, at, at, seq, READ_ROWS) as Array<
        Omit<SpooledComment, "pinned"> & { pinned: number }
      >;
      for (const row of rows) yield { ...row, pinned: row.pinned === 1 };
      if (rows.length < READ_ROWS) return;
      const last = rows[rows.length - 1]!;
      at = last.createdAt;
      seq = last.seq;
    }
  }

  /** Where a comment is, if the file has it: its page's slug and why it is skipped. */
  locate(id: string): { slug: string | null; skip: SkipReason | null; createdAt: number } | undefined {
    return this.db
      .prepare(
        "SELECT p.slug AS slug, c.skip AS skip, c.created_at AS createdAt FROM comments c LEFT JOIN pages p ON p.key = c.page_key WHERE c.id = ?",
      )
      .get(id) as { slug: string | null; skip: SkipReason | null; createdAt: number } | undefined;
  }

  close(): void {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
