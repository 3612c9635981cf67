/**
 * A fetch that answers from an in-process emulator (no sockets), and a clock tests move
 * by hand. Shared by the auth, catalogue and plugin tests.
 *
 * @module
 */
import {
  createEmulator,
  type CursorEmulatorCore,
  type EmulatorOptions,
} from "../../../src/testing/mod.ts";

/** The origin the in-process emulator pretends to live at. */
export const EMULATOR_ORIGIN = "https://emulator.test";

/** An emulator with a fetch bound to it and the requests it saw. */
export interface FetchedEmulator {
  readonly emulator: CursorEmulatorCore;
  readonly fetch: typeof fetch;
  /** `METHOD path` of every request, in order. */
  readonly requests: string[];
  /** The last request's headers for each path. */
  readonly headers: Map<string, Headers>;
}

/**
 * Creates an emulator and a fetch that calls its handler directly.
 *
 * @param options Emulator options.
 * @returns The emulator, the fetch and the request log.
 */
export async function emulatorWithFetch(options: EmulatorOptions = {}): Promise<FetchedEmulator> {
  const emulator = await createEmulator(options);
  const requests: string[] = [];
  const headers = new Map<string, Headers>();
  const fetchImpl: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname;
    requests.push(`${request.method} ${path}`);
    headers.set(path, request.headers);
    return emulator.fetch(request);
  };
  return { emulator, fetch: fetchImpl, requests, headers };
}

/** A clock a test moves by hand. */
export interface ManualClock {
  readonly now: () => number;
  advance(ms: number): void;
  set(ms: number): void;
}

/**
 * Creates a manual clock.
 *
 * @param start The starting time (epoch ms); default the real time.
 * @returns The clock.
 */
export function manualClock(start: number = Date.now()): ManualClock {
  let current = start;
  return {
    now: () => current,
    advance(ms) {
      current += ms;
    },
    set(ms) {
      current = ms;
    },
  };
}

/** A JWT-shaped token (unsigned) with the given claims. */
export function fakeJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) =>
    btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.`;
}

/** A fetch that answers every request with the responses given, in order, and records them. */
export function scriptedFetch(
  answers: readonly (Response | Error | ((request: Request) => Response))[],
): { fetch: typeof fetch; requests: Request[] } {
  const requests: Request[] = [];
  let index = 0;
  const fetchImpl: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    requests.push(request);
    const answer = answers[Math.min(index++, answers.length - 1)];
    if (answer === undefined) return Promise.reject(new TypeError("fetch failed: no answer"));
    if (answer instanceof Error) return Promise.reject(answer);
    return Promise.resolve(typeof answer === "function" ? answer(request) : answer.clone());
  };
  return { fetch: fetchImpl, requests };
}
