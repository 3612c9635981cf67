/**
 * Real workerd for tests, through miniflare (the workerd binary comes from the npm
 * registry with the `workerd` package): Worker sources bundled with the project's esbuild
 * (its own process, under a timeout), and a Miniflare instance that is disposed when the
 * test is done or, whatever happens, after its lifetime.
 */
import { execFile } from "node:child_process";
import { Miniflare, type MiniflareOptions } from "miniflare";

/** The compatibility date the test Workers run with. */
export const COMPATIBILITY_DATE = "2025-09-01";
/** How long bundling one Worker may take. */
const BUNDLE_TIMEOUT_MS = 60_000;
/** How long one workerd instance may live: longer than any test using it. */
const DEFAULT_LIFETIME_MS = 120_000;

/**
 * Bundles a Worker's main module for workerd (ES module, browser and worker conditions,
 * npm packages inlined: a Worker has no node_modules).
 *
 * @param entry A repository-relative `.ts` file.
 * @returns The bundled module's source.
 */
export function bundleWorker(entry: string): Promise<string> {
  const esbuild = `${process.cwd()}/node_modules/.bin/esbuild`;
  return new Promise((resolve, reject) => {
    execFile(
      esbuild,
      [
        entry,
        "--bundle",
        "--format=esm",
        "--platform=browser",
        "--conditions=workerd,worker",
        "--target=es2022",
        "--log-level=warning",
      ],
      { timeout: BUNDLE_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`esbuild could not bundle ${entry}: ${stderr || error}`));
        else resolve(stdout);
      },
    );
  });
}

/** A running workerd. */
export interface Workerd {
  readonly miniflare: Miniflare;
  /** Sends a request to the named Worker. */
  fetch(worker: string, path: string, init?: RequestInit): Promise<Response>;
  /** Stops workerd (idempotent). */
  close(): Promise<void>;
}

/**
 * Starts workerd with the given Workers; resolves once it serves requests.
 *
 * @param options Miniflare's options (the Workers, their bindings).
 * @param lifetimeMs After this long workerd is stopped whatever the test is doing.
 * @returns The running instance.
 */
export async function startWorkerd(
  options: MiniflareOptions,
  lifetimeMs = DEFAULT_LIFETIME_MS,
): Promise<Workerd> {
  const miniflare = new Miniflare(options);
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= miniflare.dispose().catch(() => {}));
  const guard = setTimeout(() => {
    console.error(`workerd outlived its ${lifetimeMs} ms lifetime; stopping it`);
    void close();
  }, lifetimeMs);
  (guard as { unref?: () => void }).unref?.();
  try {
    await miniflare.ready;
  } catch (error) {
    clearTimeout(guard);
    await close();
    throw error;
  }
  return {
    miniflare,
    async fetch(worker, path, init) {
      // Miniflare types the Worker's fetcher with its own undici types; the shape is fetch's.
      const fetcher = await miniflare.getWorker(worker) as unknown as {
        fetch(url: string, init?: RequestInit): Promise<Response>;
      };
      return await fetcher.fetch(`http://harness.test${path}`, init);
    },
    async close() {
      clearTimeout(guard);
      await close();
    },
  };
}
