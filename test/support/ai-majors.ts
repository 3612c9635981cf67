/**
 * Both AI SDK majors side by side, for the contract tests that run the same cases on
 * each: `ai` 6 with the root entry (`LanguageModelV3`) and `ai` 7 (installed as
 * `ai-v7`) with the `/v4` entry (`LanguageModelV4`). The two packages' types differ;
 * the kit gives the tests the few calls they make, typed by what the tests read.
 */
import * as ai6 from "ai";
import * as ai7 from "ai-v7";
import { createCursor as createCursorV3 } from "../../node.ts";
import { createCursor as createCursorV4 } from "../../node-v4.ts";
import type { CursorEmulator } from "../../src/testing/mod.ts";
import type { CursorProviderSettings } from "../../src/provider/settings/cursor-settings.ts";

/** What a test reads from a warning. */
export interface WarningSeen {
  readonly type: string;
  readonly feature?: string;
  readonly details?: string;
}

/** What a test reads from a `generateText` result. */
export interface GenerateSeen {
  readonly text: string;
  readonly finishReason: string;
  readonly reasoningText?: string | undefined;
  readonly usage: {
    readonly inputTokens?: number | undefined;
    readonly outputTokens?: number | undefined;
  };
  readonly warnings?: readonly WarningSeen[] | undefined;
  readonly steps: readonly {
    readonly finishReason: string;
    readonly toolCalls: readonly { readonly toolName: string }[];
  }[];
  readonly output?: unknown;
}

/** What a test reads from a `streamText` result. */
export interface StreamSeen {
  readonly fullStream: AsyncIterable<{ readonly type: string; readonly error?: unknown }>;
  readonly text: PromiseLike<string>;
  readonly finishReason: PromiseLike<string>;
  readonly usage: PromiseLike<{ readonly inputTokens?: number | undefined }>;
  readonly warnings: PromiseLike<readonly WarningSeen[] | undefined>;
  readonly output: PromiseLike<unknown>;
}

/** A language model of either major, as the tests pass it around. */
export interface ModelSeen {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
}

/** One AI SDK major with the entry that serves it. */
export interface AiMajor {
  readonly name: string;
  /** The specification version the entry's models implement. */
  readonly spec: "v3" | "v4";
  /** A provider of this major pointed at the emulator (SSE). */
  provider(
    emulator: CursorEmulator,
    settings?: CursorProviderSettings,
  ): { (modelId: string): ModelSeen; readonly specificationVersion: string };
  generateText(options: Record<string, unknown>): Promise<GenerateSeen>;
  streamText(options: Record<string, unknown>): StreamSeen;
  jsonSchema(schema: Record<string, unknown>): unknown;
  stepCountIs(count: number): unknown;
  /** `Output.object({ schema })`. */
  outputObject(schema: unknown): unknown;
  /** `generateObject(options)`: the object it returns. */
  generateObject(options: Record<string, unknown>): Promise<{ readonly object: unknown }>;
  /** `createProviderRegistry({ cursor })`, its `languageModel`. */
  registryModel(provider: unknown, id: string): ModelSeen;
  /** `customProvider({ languageModels: { [alias]: model }, fallbackProvider })`, its `languageModel`. */
  customModel(model: ModelSeen, fallback: unknown, id: string): ModelSeen;
}

function emulatorSettings(
  emulator: CursorEmulator,
  settings: CursorProviderSettings,
): CursorProviderSettings {
  return {
    apiKey: "crsr_test_key_0123456789",
    apiBaseURL: emulator.url,
    allowLoopback: true,
    env: {},
    conversationSnapshots: false,
    imageStaging: false,
    ...settings,
  };
}

type Loose = (options: never) => unknown;

const v6: AiMajor = {
  name: "ai 6",
  spec: "v3",
  provider: (emulator, settings = {}) =>
    createCursorV3(emulatorSettings(emulator, settings)) as unknown as ReturnType<
      AiMajor["provider"]
    >,
  generateText: (options) => (ai6.generateText as Loose)(options as never) as Promise<GenerateSeen>,
  streamText: (options) => (ai6.streamText as Loose)(options as never) as StreamSeen,
  jsonSchema: (schema) => ai6.jsonSchema(schema),
  stepCountIs: (count) => ai6.stepCountIs(count),
  outputObject: (schema) => ai6.Output.object({ schema: schema as never }),
  generateObject: (options) =>
    (ai6.generateObject as Loose)(options as never) as Promise<{ readonly object: unknown }>,
  registryModel: (provider, id) =>
    ai6.createProviderRegistry({ cursor: provider as never }).languageModel(id as never),
  customModel: (model, fallback, id) =>
    ai6.customProvider({
      languageModels: { fast: model as never },
      fallbackProvider: fallback as never,
    }).languageModel(id),
};

const v7: AiMajor = {
  name: "ai 7",
  spec: "v4",
  provider: (emulator, settings = {}) =>
    createCursorV4(emulatorSettings(emulator, settings)) as unknown as ReturnType<
      AiMajor["provider"]
    >,
  generateText: (options) => (ai7.generateText as Loose)(options as never) as Promise<GenerateSeen>,
  streamText: (options) => (ai7.streamText as Loose)(options as never) as StreamSeen,
  jsonSchema: (schema) => ai7.jsonSchema(schema),
  stepCountIs: (count) => ai7.stepCountIs(count),
  outputObject: (schema) => ai7.Output.object({ schema: schema as never }),
  generateObject: (options) =>
    (ai7.generateObject as Loose)(options as never) as Promise<{ readonly object: unknown }>,
  registryModel: (provider, id) =>
    ai7.createProviderRegistry({ cursor: provider as never }).languageModel(id as never),
  customModel: (model, fallback, id) =>
    ai7.customProvider({
      languageModels: { fast: model as never },
      fallbackProvider: fallback as never,
    }).languageModel(id),
};

/** The majors the contract tests run on. */
export const AI_MAJORS: readonly AiMajor[] = [v6, v7];
