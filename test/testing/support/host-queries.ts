/**
 * Interaction answers of the fake host: ask-question picks the first option (or
 * answers asynchronously, or rejects), switch-mode approves, create-plan accepts.
 *
 * @module
 */
import type { InteractionQuery } from "../../../src/gen/agent/v1/interaction_query_pb.ts";
import type { ClientInit, HostBehaviour, Send } from "./host-types.ts";

type ResultInit = NonNullable<
  Extract<ClientInit["message"], { case: "interactionResponse" }>["value"]["result"]
>;
type AskQuery = Extract<
  InteractionQuery["query"],
  { case: "askQuestionInteractionQuery" }
>["value"];

/** Answers one interaction query. */
export async function answerQuery(
  query: InteractionQuery,
  send: Send,
  behaviour: HostBehaviour,
): Promise<void> {
  const reply = (result: ResultInit) =>
    send({ message: { case: "interactionResponse", value: { id: query.id, result } } });
  const value = query.query;
  const rejected = behaviour.rejectQueries === true;
  switch (value.case) {
    case "askQuestionInteractionQuery":
      return await answerAsk(value.value, reply, send, behaviour);
    case "switchModeRequestQuery":
      await reply({
        case: "switchModeRequestResponse",
        value: {
          result: rejected
            ? { case: "rejected", value: { reason: "stay" } }
            : { case: "approved", value: {} },
        },
      });
      return;
    case "createPlanRequestQuery":
      await reply({
        case: "createPlanRequestResponse",
        value: {
          result: { result: { case: "success", value: {} }, planUri: "file:///ws/plan.md" },
        },
      });
      return;
    default:
      await reply({
        case: "webSearchRequestResponse",
        value: { result: { case: "rejected", value: { reason: "no" } } },
      });
  }
}

async function answerAsk(
  ask: AskQuery,
  reply: (result: ResultInit) => Promise<unknown>,
  send: Send,
  behaviour: HostBehaviour,
): Promise<void> {
  const respond = (
    result: NonNullable<
      Extract<ResultInit, { case: "askQuestionInteractionResponse" }>["value"]["result"]
    >,
  ) => reply({ case: "askQuestionInteractionResponse", value: { result } });
  if (behaviour.rejectQueries === true) {
    await respond({ result: { case: "rejected", value: { reason: "headless" } } });
    return;
  }
  const question = ask.args?.questions[0];
  const malformed = behaviour.malformedAnswers;
  if (malformed === "no-result") {
    await respond({});
    return;
  }
  const answers = [{
    questionId: malformed === "unasked-question" ? "q-never" : question?.id ?? "q1",
    selectedOptionIds: [
      malformed === "unknown-option" ? "o-never" : question?.options[0]?.id ?? "o1",
    ],
  }];
  if (behaviour.asyncAsk !== true) {
    await respond({ result: { case: "success", value: { answers } } });
    return;
  }
  await respond({ result: { case: "async", value: {} } });
  const completion = {
    originalToolCallId: ask.toolCallId,
    ...(ask.args === undefined ? {} : { originalArgs: ask.args }),
    result: { result: { case: "success" as const, value: { answers } } },
  };
  await send({
    message: {
      case: "conversationAction",
      value: { action: { case: "asyncAskQuestionCompletionAction", value: completion } },
    },
  });
}
