/**
 * What the finish of one `doStream` pass reads: the turn, the provider, the host
 * session's conversation and the Run's start facts. The turn stream's context extends it.
 *
 * @module
 */
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { Conversation } from "../../../conversation/conversation-store.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import type { StartFacts } from "../turn-types.ts";
import type { UsageMode } from "../diagnostics/usage-events.ts";

/** The facts of a pass that its finish, billing and diagnostics need. */
export interface PassContext {
  readonly turn: ActiveTurn;
  readonly config: ProviderConfig;
  readonly conversation: Conversation<ActiveTurn> | undefined;
  /** The key the held Run is filed under (the session key, or an anonymous one). */
  readonly holdKey: string;
  readonly prompt: LanguageModelV3Prompt;
  /** The usage shape this call reports (default: the provider's setting). */
  readonly usageMode?: UsageMode | undefined;
  /** How the turn's Run started, and the session it belongs to. */
  readonly diagnostics: StartFacts & { readonly sessionKey: string };
}
