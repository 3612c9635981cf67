import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, toBinary } from "@bufbuild/protobuf";
import { ConversationStateStructureSchema } from "../../../../src/gen/agent/v1/conversation_state_pb.ts";
import {
  checkpointWindow,
  seedOverflow,
} from "../../../../src/provider/direct/turn-plan/seed-fit.ts";
import { toProviderError } from "../../../../src/provider/api-call-error.ts";
import { APICallError } from "@ai-sdk/provider";

describe("seed fit", () => {
  it("a seed of exactly the window fits; one token more overflows as a 413", () => {
    const seed = (bytes: number) => ({
      text: "x".repeat(bytes),
      systemPrompt: "sys.",
      kind: "reseed" as const,
    });
    assert.equal(seedOverflow(seed(3_996), 1_000), undefined);
    const overflow = seedOverflow(seed(3_997), 1_000);
    assert.equal(overflow?.code, "context_overflow");
    assert.match(overflow?.message ?? "", /about 1001 tokens for a context of 1000/);
    const shown = toProviderError(overflow, { url: "u", requestBodyValues: {} });
    assert.ok(APICallError.isInstance(shown));
    assert.equal(shown.statusCode, 413);
    assert.equal(shown.isRetryable, false);
  });

  it("reads the window Cursor reported in a checkpoint", () => {
    const checkpoint = toBinary(
      ConversationStateStructureSchema,
      create(ConversationStateStructureSchema, {
        tokenDetails: { usedTokens: 1_200, maxTokens: 272_000 },
      }),
    );
    assert.equal(checkpointWindow(checkpoint), 272_000);
    const bare = toBinary(
      ConversationStateStructureSchema,
      create(ConversationStateStructureSchema),
    );
    assert.equal(checkpointWindow(bare), undefined);
    assert.equal(checkpointWindow(new Uint8Array([0xff, 0xff])), undefined);
  });
});
