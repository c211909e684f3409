// The driver's SQLite reads on threads of their own (database.sqlite_read_threads), each with its
// connection (sqlite-read-thread.mjs). A read that misses the OS page cache waits on the disk
// there, not on the event loop, and several such reads reach the disk at once: on this project's
// test machine random 4 KiB reads from a cold file ran 6,300/s one at a time and 19,600/s four at
// a time. A read goes to the thread with the fewest reads in hand. Threads start with open() (the
// service's start) or on first use, and a thread that fails is started again on the next read.
import { Worker } from "node:worker_threads";

export interface SqliteReadThreadOptions {
  path: string;
  pragmas: string[];
  timeoutMs: number;
  maxStatements: number;
  count: number;
}

/** A read's answer: its rows as arrays, and its column names when asked for. */
export interface ThreadRows {
  rows: unknown[][];
  columns?: string[];
}

interface Answer extends ThreadRows {
  /** The first message: the thread's connection is open. */
  ready?: true;
  id: number;
  error?: { message: string; code?: unknown };
}

interface Waiting {
  resolve: (answer: ThreadRows) => void;
  reject: (err: Error) => void;
}

const THREAD_FILE = new URL("./sqlite-read-thread.mjs", import.meta.url);

class ReadThread {
  readonly waiting = new Map<number, Waiting>();
  /** Settles once the thread's connection is open (or the thread failed). */
  readonly ready: Promise<void>;
  private readonly worker: Worker;

  constructor(options: SqliteReadThreadOptions, onGone: (thread: ReadThread) => void) {
    const { path, pragmas, timeoutMs, maxStatements } = options;
    // No flags of the service's own process (its TypeScript loader, an `-e` script's input type):
    // the thread is plain JavaScript, and starts in half the time without the loader.
    this.worker = new Worker(THREAD_FILE, { workerData: { path, pragmas, timeoutMs, maxStatements }, execArgv: [] });
    // Idle, a thread does not keep the process alive (a tool that never closes its database still
    // exits); with a read in hand it does, so a tool's awaited read is answered.
    this.worker.unref();
    let opened: () => void = () => {};
    this.ready = new Promise((resolve) => (opened = resolve));
    this.worker.on("message", (answer: Answer) => {
      if (answer.ready) return opened();
      const waiting = this.waiting.get(answer.id);
      if (!waiting) return;
      this.waiting.delete(answer.id);
      if (this.waiting.size === 0) this.worker.unref();
      if (answer.error) waiting.reject(Object.assign(new Error(answer.error.message), { code: answer.error.code }));
      else waiting.resolve(answer);
    });
    const fail = (err: Error) => {
      opened();
      onGone(this);
      for (const waiting of this.waiting.values()) waiting.reject(err);
      this.waiting.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`a SQLite read thread stopped (exit code ${code})`)));
  }

  read(id: number, sql: string, values: unknown[], describe: boolean): Promise<ThreadRows> {
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, sql, values, describe });
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

export class SqliteReadThreads {
  private readonly threads: (ReadThread | null)[];
  private nextId = 0;

  constructor(private readonly options: SqliteReadThreadOptions) {
    this.threads = Array.from({ length: options.count }, () => null);
  }

  /** Starts every thread now and waits until each has opened its connection, so the first reads do not wait for one. */
  async start(): Promise<void> {
    await Promise.all(this.threads.map((_, i) => this.thread(i).ready));
  }

  /** Runs a reading statement (`?` placeholders, values in their order) on the least busy thread. */
  read(sql: string, values: unknown[], describe: boolean): Promise<ThreadRows> {
    let chosen = 0;
    for (let i = 1; i < this.threads.length; i++)
      if ((this.threads[i]?.waiting.size ?? 0) < (this.threads[chosen]?.waiting.size ?? 0)) chosen = i;
    return this.thread(chosen).read(this.nextId++, sql, values, describe);
  }

  async close(): Promise<void> {
    const running = this.threads.filter((thread) => thread !== null);
    this.threads.fill(null);
    await Promise.all(running.map((thread) => thread.stop()));
  }

  private thread(i: number): ReadThread {
    const gone = (thread: ReadThread) => {
      if (this.threads[i] === thread) this.threads[i] = null;
    };
    return (this.threads[i] ??= new ReadThread(this.options, gone));
  }
}
