/**
 * A per-provider redactor: it remembers every credential value the process sends (API
 * key, access and refresh tokens, whatever their shape) and removes them, plus anything
 * that looks like a key or token, from log lines and whole error chains. Pattern-based
 * redaction alone misses opaque tokens a server echoes back; this does not.
 *
 * @module
 */
import { redactSecrets } from "../core/cursor-error.ts";
import type { DebugLogger, DiagnosticRecord } from "../core/logger.ts";

/** Values shorter than this are not remembered (they would redact ordinary words). */
const MIN_SECRET_LENGTH = 8;

/** The most values remembered; the oldest go first (long-expired renewed tokens). */
const MAX_SECRETS = 64;

/** How deep {@link CredentialRedactor.redactError} follows causes and nested objects. */
const MAX_DEPTH = 8;

/** Remembers credentials and removes them from text and errors. */
export interface CredentialRedactor {
  /**
   * Remembers a credential value (ignored when absent or shorter than 8 characters); the
   * latest 64 values are kept.
   */
  remember(value: string | undefined): void;
  /** The text with every remembered value and every key/token pattern replaced. */
  redact(text: string): string;
  /**
   * Redacts an error in place: message, stack, string properties and nested objects,
   * following `cause` and `errors`, so `util.inspect`, `JSON.stringify` and the stack
   * show no credential.
   *
   * @returns The same error.
   */
  redactError<T>(error: T): T;
}

/**
 * Creates an empty redactor.
 *
 * @returns The redactor.
 *
 * @example
 * ```ts
 * import { createCredentialRedactor } from "./credential-redactor.ts";
 *
 * const redactor = createCredentialRedactor();
 * redactor.remember("opaque-token-123");
 * console.assert(redactor.redact("bad token opaque-token-123") === "bad token [redacted]");
 * const error = redactor.redactError(new Error("echo: opaque-token-123"));
 * console.assert(!String(error.stack).includes("opaque-token-123"));
 * ```
 */
export function createCredentialRedactor(): CredentialRedactor {
  const secrets = new Set<string>();
  let ordered: string[] = [];
  const redact = (text: string): string => {
    let result = text;
    for (const secret of ordered) {
      if (result.includes(secret)) result = result.split(secret).join("[redacted]");
    }
    return redactSecrets(result);
  };
  return {
    remember(value) {
      if (value === undefined || value.length < MIN_SECRET_LENGTH || secrets.has(value)) return;
      secrets.add(value);
      const trimmed = value.trim();
      if (trimmed.length >= MIN_SECRET_LENGTH) secrets.add(trimmed);
      for (const oldest of secrets) {
        if (secrets.size <= MAX_SECRETS) break;
        secrets.delete(oldest);
      }
      ordered = [...secrets].sort((a, b) => b.length - a.length);
    },
    redact,
    redactError(error) {
      redactObject(error, redact, new Set(), 0);
      return error;
    },
  };
}

/**
 * A logger that passes every line and typed event through the redactor first.
 *
 * @param logger Where the redacted lines go.
 * @param redactor The provider's redactor.
 * @returns The redacting logger (the logger itself when it records nothing).
 *
 * @example
 * ```ts
 * import { createCredentialRedactor, redactingLogger } from "./credential-redactor.ts";
 * import { createMemoryLogger } from "../core/logger.ts";
 *
 * const redactor = createCredentialRedactor();
 * redactor.remember("opaque-token-123");
 * const { logger, lines } = createMemoryLogger();
 * redactingLogger(logger, redactor).line("sent opaque-token-123");
 * console.assert(lines[0] === "sent [redacted]");
 * ```
 */
export function redactingLogger(logger: DebugLogger, redactor: CredentialRedactor): DebugLogger {
  if (!logger.enabled) return logger;
  const record = logger.record?.bind(logger);
  return {
    enabled: true,
    line: (text) => logger.line(redactor.redact(text)),
    ...(record
      ? {
        record: (event: DiagnosticRecord, text: string) =>
          record(
            JSON.parse(redactor.redact(JSON.stringify(event))) as DiagnosticRecord,
            redactor.redact(text),
          ),
      }
      : {}),
  };
}

function redactObject(
  value: unknown,
  redact: (text: string) => string,
  seen: Set<object>,
  depth: number,
): void {
  if (typeof value !== "object" || value === null || seen.has(value) || depth > MAX_DEPTH) return;
  seen.add(value);
  for (const key of Object.getOwnPropertyNames(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !("value" in descriptor)) {
      if (key === "stack" || key === "message") rewrite(value, key, redact);
      continue;
    }
    const inner: unknown = descriptor.value;
    if (typeof inner === "string") rewrite(value, key, redact);
    else if (typeof inner === "object" && inner !== null) {
      redactObject(inner, redact, seen, depth + 1);
    }
  }
}

function rewrite(target: object, key: string, redact: (text: string) => string): void {
  try {
    const record = target as Record<string, unknown>;
    const current = record[key];
    if (typeof current !== "string") return;
    const redacted = redact(current);
    if (redacted === current) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, key);
    Object.defineProperty(target, key, {
      value: redacted,
      writable: true,
      configurable: true,
      enumerable: descriptor?.enumerable ?? false,
    });
  } catch {
    // A frozen or exotic property stays as it is.
  }
}
