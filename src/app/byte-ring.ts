// Log text as UTF-8 bytes without a new allocation per write: the bytes are encoded into one
// buffer allocated at start and used round and round, each write's bytes a slice of it, and a
// slice's room is used again only once the destination says its bytes were written. A fresh
// Buffer per block (Buffer.from of 64 KB) cost about 1 µs of CPU a request line, most of it the
// allocator giving the memory back and faulting it in again.

/** What was handed out, in order: where its handed-out total ends, and its start in the ring (-1: not in it). */
interface Handed {
  end: number;
  start: number;
}

export class ByteRing {
  private readonly ring: Buffer;
  /** Where the next bytes go. */
  private head = 0;
  private handedTotal = 0;
  private writtenTotal = 0;
  private readonly pending: Handed[] = [];

  constructor(size: number) {
    this.ring = Buffer.allocUnsafeSlow(size);
  }

  /** `text` as UTF-8: a slice of the ring when there is room for it, else a buffer of its own. */
  bytes(text: string): Buffer {
    if (text.length === 0) return Buffer.alloc(0);
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    return this.encode(text.length * 3, (target, start) => start + target.write(text, start, "utf8"));
  }

  /**
   * Bytes made in place: `fill` writes at most `size` bytes into `target` from `start` and returns
   * where they end; they come back as a slice of the ring when it had room, else of a buffer of
   * their own.
   */
  encode(size: number, fill: (target: Buffer, start: number) => number): Buffer {
    const start = this.roomFor(size);
    let bytes: Buffer;
    if (start === -1) {
      const own = Buffer.allocUnsafe(size);
      bytes = own.subarray(0, fill(own, 0));
    } else {
      bytes = this.ring.subarray(start, fill(this.ring, start));
      this.head = start + bytes.length;
    }
    this.handedTotal += bytes.length;
    this.pending.push({ end: this.handedTotal, start });
    return bytes;
  }

  /** `n` more of the bytes handed out (in the order handed out) were written: their room is free. */
  written(n: number): void {
    this.writtenTotal += n;
    let done = 0;
    while (done < this.pending.length && this.pending[done]!.end <= this.writtenTotal) done++;
    if (done > 0) this.pending.splice(0, done);
  }

  /** Where `size` bytes fit without touching unwritten ones (-1: nowhere now). */
  private roomFor(size: number): number {
    const oldest = this.pending.find((handed) => handed.start !== -1);
    if (!oldest) return size <= this.ring.length ? 0 : -1;
    const tail = oldest.start;
    // Unwritten bytes lie from tail up to head, wrapping past the end when head is before tail.
    if (this.head > tail) {
      if (this.head + size <= this.ring.length) return this.head;
      return size <= tail ? 0 : -1;
    }
    return this.head < tail && this.head + size <= tail ? this.head : -1;
  }
}
