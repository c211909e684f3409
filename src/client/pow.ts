// Proof of work (contract: "Proof of work"): find a nonce so that SHA-256 of
// `<challenge>|<nonce>` has `difficulty` leading zero bits. Solved in a Web Worker (browsers)
// or a worker_threads Worker (Node), so the page stays responsive; an AbortSignal ends it.

/**
 * The solver. It runs inside a worker built from its source text, so it must stay
 * self-contained: no imports, no outer variables, no nested functions (bundlers would rename
 * or wrap them). SHA-256 is written out because WebCrypto's digest is asynchronous and far too
 * slow per call for tens of thousands of candidates. Challenges and nonces are ASCII.
 */
export function solvePowSync(challenge: string, difficulty: number): string {
  const K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
  ]);
  const W = new Uint32Array(64);
  const H = new Uint32Array(8);
  // Room for the longest candidate (a nonce of up to 13 base-36 digits), reused: no allocation per hash.
  const words = new Uint32Array((((challenge.length + 14 + 8) >> 6) + 1) * 16);
  for (let n = 0; ; n++) {
    const text = `${challenge}|${n.toString(36)}`;
    const length = text.length;
    const blocks = ((length + 8) >> 6) + 1;
    words.fill(0);
    for (let i = 0; i < length; i++) words[i >> 2]! |= text.charCodeAt(i) << (24 - (i & 3) * 8);
    words[length >> 2]! |= 0x80 << (24 - (length & 3) * 8);
    words[blocks * 16 - 1] = length * 8;
    H.set([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
    for (let block = 0; block < blocks; block++) {
      for (let t = 0; t < 64; t++) {
        if (t < 16) W[t] = words[block * 16 + t]!;
        else {
          const w15 = W[t - 15]!;
          const w2 = W[t - 2]!;
          const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
          const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
          W[t] = W[t - 16]! + s0 + W[t - 7]! + s1;
        }
      }
      let a = H[0]!,
        b = H[1]!,
        c = H[2]!,
        d = H[3]!,
        e = H[4]!,
        f = H[5]!,
        g = H[6]!,
        h = H[7]!;
      for (let t = 0; t < 64; t++) {
        const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
        const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[t]! + W[t]!) | 0;
        const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
        const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g;
        g = f;
        f = e;
        e = (d + t1) | 0;
        d = c;
        c = b;
        b = a;
        a = (t1 + t2) | 0;
      }
      H[0]! += a;
      H[1]! += b;
      H[2]! += c;
      H[3]! += d;
      H[4]! += e;
      H[5]! += f;
      H[6]! += g;
      H[7]! += h;
    }
    let zeros = 0;
    for (let i = 0; i < 8; i++) {
      zeros += Math.clz32(H[i]!);
      if (H[i] !== 0) break;
    }
    if (zeros >= difficulty) return text;
  }
}

const abortError = () => new DOMException("The proof of work was cancelled.", "AbortError");

/** Solves off the main thread; rejects with an AbortError when `signal` aborts. */
export function solvePow(challenge: string, difficulty: number, signal?: AbortSignal): Promise<string> {
  if (signal?.aborted) return Promise.reject(abortError());
  const solver = `const solve = ${solvePowSync.toString()};`;
  const isNode =
    typeof process === "object" && typeof process.versions?.node === "string" && typeof window === "undefined";
  return isNode
    ? solveInNodeWorker(solver, challenge, difficulty, signal)
    : solveInWebWorker(solver, challenge, difficulty, signal);
}

function solveInWebWorker(
  solver: string,
  challenge: string,
  difficulty: number,
  signal?: AbortSignal,
): Promise<string> {
  const url = URL.createObjectURL(
    new Blob([`${solver} onmessage = (e) => postMessage(solve(e.data[0], e.data[1]));`], { type: "text/javascript" }),
  );
  const worker = new Worker(url);
  URL.revokeObjectURL(url);
  return settle(worker, signal, (resolve, reject) => {
    worker.onmessage = (e: MessageEvent<string>) => resolve(e.data);
    worker.onerror = (e) => reject(new Error(`proof-of-work worker failed: ${e.message}`));
    worker.postMessage([challenge, difficulty]);
  });
}

async function solveInNodeWorker(
  solver: string,
  challenge: string,
  difficulty: number,
  signal?: AbortSignal,
): Promise<string> {
  const { Worker: NodeWorker } = await import("node:worker_threads");
  const source = `${solver} const { parentPort, workerData } = require("node:worker_threads"); parentPort.postMessage(solve(workerData[0], workerData[1]));`;
  const worker = new NodeWorker(source, { eval: true, workerData: [challenge, difficulty] });
  return settle(worker, signal, (resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}

/** Wires a worker's answer to a promise, terminating the worker when done or cancelled. */
function settle(
  worker: { terminate(): unknown },
  signal: AbortSignal | undefined,
  start: (resolve: (answer: string) => void, reject: (err: unknown) => void) => void,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const finish = () => {
      signal?.removeEventListener("abort", onAbort);
      void worker.terminate();
    };
    const onAbort = () => {
      finish();
      reject(abortError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    start(
      (answer) => (finish(), resolve(answer)),
      (err) => (finish(), reject(err)),
    );
  });
}
