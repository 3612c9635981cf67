/**
 * What one `doStream` call's stream needs: the turn, the conversation it belongs to, the
 * host's tools and the diagnostics of how the turn was planned.
 *
 * @module
 */
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { Conversation } from "../../session/conversation-store.ts";
import type { ProviderConfig } from "../provider-config.ts";
import type { ActiveTurn } from "./active-turn.ts";
import type { HostTools } from "./tools/host-tools.ts";

/** What one `doStream` call's stream needs. */
export interface TurnStreamContext {
  readonly turn: ActiveTurn;
  readonly config: ProviderConfig;
  readonly conversation: Conversation<ActiveTurn> | undefined;
  /** The key the held Run is filed under (the session key, or an anonymous one). */
  readonly holdKey: string;
  readonly prompt: LanguageModelV3Prompt;
  readonly tools: HostTools;
  /**
   * The call's abort signal. It ends the Run only while this call streams: once the Run is
   * held for tool results it belongs to the conversation, and a host that aborts a finished
   * step's signal (OpenCode does) must not kill it.
   */
  readonly abortSignal?: AbortSignal | undefined;
  readonly diagnostics: {
    readonly sessionKey: string;
    readonly continuity: string;
    readonly coldReason: string | undefined;
    readonly requestContext: string;
    readonly requestContextHash: string;
    readonly systemPromptHash: string;
    readonly systemPromptSent: boolean;
  };
}
