/**
 * The Cursor emulator: a strict, protocol-faithful local Cursor backend for tests —
 * yours, ours and your CI's. It speaks Cursor's Connect-RPC agent protocol on loopback:
 * `RunSSE` + `BidiAppend` (any fetch client), the HTTP/2 bidi `Run` (h2c, or TLS with
 * ALPN), `AvailableModels`, `GetServerConfig`, `GetUsableModels`, browser login, API-key
 * exchange and token refresh. Its deterministic model follows a small directive
 * language in the user's text:
 *
 * ```text
 * ::shell <command>           ::read <path>             ::write <path> <text>
 * ::ls [path]                 ::grep <pattern> [path]   ::glob <pattern> [path]
 * ::delete <path>             ::mcp <tool> [json]       ::subagent <type> <prompt>
 * ::ask <q> | a | b           ::mode <target> [why]     ::plan <name>: <plan>
 * ::parallel … ::end          ::text <text>             ::think <text>
 * ::emit <size>               ::deltas <count>          ::sleep <duration>
 * ::fault <kind> [key=value…] ::image <path> <description>
 * ::websearch <query>         ::subagent-shown <type> <prompt> [| <path>…]
 * ```
 *
 * The fake `cursor-agent` reads the same language (one parser, one table in
 * docs/emulator.md). Only the newest user message acts: history rebuilt from blobs or
 * reseeded as text never runs again.
 *
 * Each tool directive is one model step: the emulator sends the exec (or interaction
 * query), waits for the answer, and its final text quotes every result. Conversation
 * state lives in content-addressed blobs in the client's store (SET before use, GET on
 * the next Run), with an emulated prompt cache whose reads a test can compare with the
 * ideal. Faults are injected on demand; strict mode records every protocol violation.
 * See docs/emulator.md for the full reference.
 *
 * @example A turn over RunSSE + BidiAppend, read with plain fetch
 * ```ts
 * import { startCursorEmulator } from "./mod.ts";
 *
 * const emulator = await startCursorEmulator({ auth: { required: false } });
 * try {
 *   const models = await fetch(`${emulator.url}/aiserver.v1.AiService/AvailableModels`, {
 *     method: "POST",
 *     headers: { "content-type": "application/json" },
 *     body: JSON.stringify({ useModelParameters: true }),
 *   });
 *   const body = await models.json();
 *   console.assert(body.models.some((m: { name: string }) => m.name === "claude-4.5-sonnet"));
 * } finally {
 *   await emulator.close();
 * }
 * ```
 *
 * @module
 */
export {
  type CursorEmulator,
  startCursorEmulator,
  type StartEmulatorOptions,
} from "./adapters/serve.ts";
export type { TlsOptions } from "./adapters/http2-server.ts";
export type { NetworkOptions, NetworkStats } from "./adapters/network-relay.ts";
export { createEmulator, type CursorEmulatorCore, type RunFilter } from "./emulator/emulator.ts";
export type {
  ContextOverflowError,
  EmulatorOptions,
  FinalAnswerBlob,
  Http2ConfigName,
  PrivacyModeName,
} from "./emulator/config/options.ts";
export type { EmulatorStats } from "./emulator/http/emulator-core.ts";
export type {
  ClientCancelRecord,
  ExecRecord,
  InteractionRecord,
  ModelCallRecord,
  RunCounters,
  RunRecord,
} from "./emulator/observe/records.ts";
export type { RunVariants } from "./emulator/observe/run-variants.ts";
export {
  RULE_NAMES,
  type RuleInfo,
  type RuleName,
  RULES,
  type Violation,
} from "./emulator/observe/violations.ts";
export {
  ERROR_PRESETS,
  FaultController,
  type FaultSpec,
  type FaultTarget,
} from "./emulator/faults/faults.ts";
export {
  type AuthEvent,
  type AuthOptions,
  AuthState,
  type RefreshVariant,
  type TokenPair,
  type TokenRefusal,
} from "./emulator/auth/auth-state.ts";
export type { JwtSigning, TokenClaims } from "./emulator/auth/jwt.ts";
export type { EmulatedError, ErrorDetail } from "./emulator/wire/connect-http.ts";
export {
  type AdvertisedTool,
  directiveScenario,
  type HistoryMessage,
  type Scenario,
  type ScenarioContext,
  type ScenarioToolResult,
} from "./emulator/model/scenario/scenario.ts";
export {
  type JsonValue,
  parseDirectives,
  type PlanStep,
  type ToolSpec,
} from "./emulator/model/plan/directive-plan.ts";
export { type FaultStep, type ToolFaultPoint } from "./emulator/model/plan/fault-directive.ts";
export {
  type CatalogModel,
  type CatalogParameter,
  type CatalogVariant,
  DEFAULT_MODEL_ID,
} from "./emulator/catalog/catalog.ts";
export { defaultCatalog } from "./emulator/catalog/catalog-data.ts";
export type { LogDirection, LogEntry, LogFilter } from "./emulator/observe/log.ts";
export { estimateTokens } from "./emulator/conversation/prompt-cache.ts";
export {
  type FakeRuntime,
  type InstalledFakeCursorAgent,
  installFakeCursorAgent,
  type InstallFakeCursorAgentOptions,
} from "./adapters/fake-cursor-agent/install.ts";
