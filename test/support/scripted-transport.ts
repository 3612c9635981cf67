/**
 * A stub transport for provider tests: a scripted server reacts to decoded client
 * messages and emits server messages built with create()/toBinary().
 */
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import {
  type AgentClientMessage,
  AgentClientMessageSchema,
} from "../../src/gen/agent/v1/client_message_pb.ts";
import { AgentServerMessageSchema } from "../../src/gen/agent/v1/server_message_pb.ts";
import type {
  AgentRunStream,
  AgentTransport,
  OpenRunOptions,
} from "../../src/transport/agent-transport.ts";
import type { Frame } from "../../src/transport/frame-stream.ts";
import type { CursorError } from "../../src/core/cursor-error.ts";

export type ServerInit = MessageInitShape<typeof AgentServerMessageSchema>;

/** The server side of one scripted Run. */
export interface ScriptedServer {
  /** Client messages received so far. */
  readonly received: AgentClientMessage[];
  /** Waits for the next client message matching the predicate. */
  next(predicate?: (message: AgentClientMessage) => boolean): Promise<AgentClientMessage>;
  emit(message: ServerInit): void;
  end(error?: CursorError): void;
  /** Ends the body without an end-of-stream frame. */
  drop(): void;
}

export interface ScriptedTransport extends AgentTransport {
  readonly runs: { options: OpenRunOptions; server: ScriptedServer }[];
}

/** Creates a transport whose every Run is driven by `script`. */
export function createScriptedTransport(
  script: (server: ScriptedServer) => Promise<void>,
): ScriptedTransport {
  const runs: ScriptedTransport["runs"] = [];
  return {
    kind: "sse",
    runs,
    openRun(options) {
      const { stream, server } = scriptedRun();
      runs.push({ options, server });
      script(server).catch((error: unknown) => server.end(error as CursorError));
      return Promise.resolve(stream);
    },
  };
}

function scriptedRun(): { stream: AgentRunStream; server: ScriptedServer } {
  const received: AgentClientMessage[] = [];
  const waiters: {
    predicate: (m: AgentClientMessage) => boolean;
    resolve: (m: AgentClientMessage) => void;
  }[] = [];
  let cursor = 0;
  const frames: (Frame | "drop" | { error: CursorError })[] = [];
  let wake: (() => void) | undefined;
  const push = (item: Frame | "drop" | { error: CursorError }) => {
    frames.push(item);
    wake?.();
  };
  const server: ScriptedServer = {
    received,
    next(predicate = () => true) {
      for (; cursor < received.length; cursor++) {
        const message = received[cursor];
        if (message && predicate(message)) {
          cursor++;
          return Promise.resolve(message);
        }
      }
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
    emit(message) {
      push({
        kind: "message",
        bytes: toBinary(AgentServerMessageSchema, create(AgentServerMessageSchema, message)),
      });
    },
    end(error) {
      push(error ? { error } : { kind: "end", end: { ok: true, metadata: {} } });
    },
    drop() {
      push("drop");
    },
  };
  const stream: AgentRunStream = {
    send(bytes) {
      const message = fromBinary(AgentClientMessageSchema, bytes);
      received.push(message);
      const index = waiters.findIndex((w) => w.predicate(message));
      if (index >= 0) {
        const [waiter] = waiters.splice(index, 1);
        cursor = received.length;
        waiter?.resolve(message);
      }
      return Promise.resolve();
    },
    frames: (async function* () {
      for (let i = 0;; i++) {
        while (i >= frames.length) await new Promise<void>((resolve) => (wake = resolve));
        const item = frames[i];
        if (item === undefined || item === "drop") return;
        if ("error" in item) throw item.error;
        yield item;
        if (item.kind === "end") return;
      }
    })(),
    close() {},
  };
  return { stream, server };
}

/** A plain text reply: request-context probe, deltas, checkpoint, turn_ended, end. */
export async function replyWithText(
  server: ScriptedServer,
  parts: string[],
  usedTokens = 1200,
): Promise<void> {
  await server.next((m) => m.message.case === "runRequest");
  server.emit({
    message: {
      case: "execServerMessage",
      value: { id: 0, message: { case: "requestContextArgs", value: {} } },
    },
  });
  await server.next((m) => m.message.case === "execClientMessage");
  for (const text of parts) {
    server.emit({
      message: {
        case: "interactionUpdate",
        value: { message: { case: "textDelta", value: { text } } },
      },
    });
  }
  server.emit({
    message: {
      case: "interactionUpdate",
      value: {
        message: {
          case: "turnEnded",
          value: {
            inputTokens: 5000n,
            outputTokens: 40n,
            cacheReadTokens: 3000n,
            cacheWriteTokens: 0n,
            reasoningTokens: 0n,
          },
        },
      },
    },
  });
  server.emit({
    message: {
      case: "conversationCheckpointUpdate",
      value: { tokenDetails: { usedTokens, maxTokens: 200000 } },
    },
  });
  server.end();
}

/** Ends a Run the way Cursor does after its last words: a text delta, turn_ended, end of stream. */
export function finishWithText(server: ScriptedServer, text: string): void {
  server.emit({
    message: {
      case: "interactionUpdate",
      value: { message: { case: "textDelta", value: { text } } },
    },
  });
  server.emit({
    message: { case: "interactionUpdate", value: { message: { case: "turnEnded", value: {} } } },
  });
  server.end();
}
