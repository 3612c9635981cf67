/** A fetch that records every request (URL, headers, body) before passing it on. */

/** One request as it left the process. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  /** The body decoded byte for byte (latin1), so any embedded text is searchable. */
  readonly body: string;
}

/** A recording fetch and what it recorded. */
export interface RecordingFetch {
  readonly fetch: typeof fetch;
  readonly requests: RecordedRequest[];
}

/**
 * Wraps `inner`: every request is recorded, then `answer` may replace the response.
 *
 * @param inner The fetch that really sends.
 * @param answer Returns a response to use instead of sending, or `undefined` to send.
 */
export function recordingFetch(
  inner: typeof fetch = globalThis.fetch.bind(globalThis),
  answer: (request: RecordedRequest) => Response | undefined = () => undefined,
): RecordingFetch {
  const requests: RecordedRequest[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const bytes = init?.body instanceof Uint8Array
      ? init.body
      : typeof init?.body === "string"
      ? new TextEncoder().encode(init.body)
      : new Uint8Array(await request.clone().arrayBuffer());
    const recorded: RecordedRequest = {
      method: request.method,
      url: request.url,
      path: new URL(request.url).pathname,
      headers: Object.fromEntries(request.headers),
      body: Array.from(bytes, (b) => String.fromCharCode(b)).join(""),
    };
    requests.push(recorded);
    return answer(recorded) ?? await inner(input, init);
  };
  return { fetch: wrapped, requests };
}

/** Whether `secret` occurs anywhere in the request (URL, any header, body). */
export function requestContains(request: RecordedRequest, secret: string): boolean {
  return request.url.includes(secret) || request.body.includes(secret) ||
    Object.values(request.headers).some((value) => value.includes(secret));
}
