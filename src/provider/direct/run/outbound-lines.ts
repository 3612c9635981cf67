/**
 * The outbound lines of a new Run (runbook: `outbound Run:` and the `hash:` lines of the
 * system prompt, the request context and the checkpoint it sends).
 *
 * @module
 */
import { sha256Hex } from "../../../core/bytes.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import type { selectModel } from "../call/model-options.ts";
import type { TurnPlan } from "../turn-plan/turn-plan.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";

/**
 * Writes the outbound lines of a Run about to open.
 *
 * @param config The provider configuration (its logger).
 * @param facts The plan, model, session key, transport and request context of the Run.
 */
export async function logOutbound(
  config: ProviderConfig,
  facts: {
    plan: TurnPlan;
    selection: ReturnType<typeof selectModel>;
    key: string | undefined;
    transport: string;
    requestContext: { bytes: Uint8Array; reused: boolean };
  },
): Promise<void> {
  const { plan } = facts;
  emitDiagnostic(config.logger, {
    kind: "outbound-run",
    sessionKey: facts.key ?? "none",
    conversationId: plan.conversationId,
    model: facts.selection.modelId,
    transport: facts.transport,
    reset: plan.resetReason !== undefined,
    resume: false,
    checkpointLen: plan.checkpoint.length,
    requestContext: facts.requestContext.reused ? "reused" : "built",
    requestContextLen: facts.requestContext.bytes.length,
    systemPromptSent: plan.continuity === "cold",
  });
  emitDiagnostic(config.logger, {
    kind: "hash",
    subject: "systemPrompt",
    sha256: await sha256Hex(plan.systemPrompt),
    sent: plan.continuity === "cold",
  });
  emitDiagnostic(config.logger, {
    kind: "hash",
    subject: "requestContext",
    sha256: await sha256Hex(facts.requestContext.bytes),
    bytes: facts.requestContext.bytes.length,
  });
  emitDiagnostic(config.logger, {
    kind: "hash",
    subject: "checkpoint",
    sha256: await sha256Hex(plan.checkpoint),
    bytes: plan.checkpoint.length,
  });
}
