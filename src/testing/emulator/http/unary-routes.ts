/**
 * The unary RPCs: `AvailableModels`, `GetServerConfig` (announcing the emulator's own
 * agent URL), `GetUsableModels` and `GetDefaultModelForCli`, each with the binary
 * (`application/proto`) and JSON (`application/json`) codecs and on every path variant
 * clients use.
 *
 * @module
 */
import {
  create,
  type DescMessage,
  fromBinary,
  fromJson,
  type MessageShape,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import {
  AvailableModelsRequestSchema,
  AvailableModelsResponseSchema,
} from "../../../gen/aiserver/v1/ai_service_pb.ts";
import {
  GetServerConfigRequestSchema,
  GetServerConfigResponseSchema,
  Http2Config,
} from "../../../gen/aiserver/v1/server_config_pb.ts";
import type { Http2ConfigName, PrivacyModeName } from "../config/options.ts";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import {
  GetDefaultModelForCliRequestSchema,
  GetDefaultModelForCliResponseSchema,
  GetUsableModelsRequestSchema,
  GetUsableModelsResponseSchema,
} from "../../../gen/agent/v1/agent_service_pb.ts";
import { availableModelsResponse, modelDetails } from "../catalog/catalog-messages.ts";
import { DEFAULT_MODEL_ID } from "../catalog/catalog.ts";
import type { EmulatorCore } from "./emulator-core.ts";
import { acceptUnaryRequest, unaryAnswer, undecodableRequest } from "./request-preamble.ts";

const UNARY_BODY_LIMIT = 1024 * 1024;

type Handler = (core: EmulatorCore, request: Request) => Promise<Response>;

/** Unary routes by path. */
export const UNARY_ROUTES: Readonly<Record<string, Handler>> = {
  "/aiserver.v1.AiService/AvailableModels": (core, request) =>
    unary(
      core,
      request,
      AvailableModelsRequestSchema,
      AvailableModelsResponseSchema,
      (input) => availableModelsResponse(core.options.models, input),
    ),
  "/aiserver.v1.ServerConfigService/GetServerConfig": serverConfig,
  "/agent.v1.AgentService/GetServerConfig": serverConfig,
  "/agent.v1.AgentService/GetUsableModels": usableModels,
  "/aiserver.v1.AiService/GetUsableModels": usableModels,
  "/agent.v1.AgentService/GetDefaultModelForCli": defaultModel,
  "/aiserver.v1.AiService/GetDefaultModelForCli": defaultModel,
  "/aiserver.v1.DashboardService/GetUserPrivacyMode": (core, request) =>
    rawUnary(core, request, () => privacyModeResponse(PRIVACY_MODE[core.options.privacyMode])),
  "/aiserver.v1.DashboardService/GetTeamAdminSettingsOrEmptyIfNotInTeam": (core, request) =>
    rawUnary(core, request, () => new Uint8Array(0)),
  "/aiserver.v1.DashboardService/GetTeamReposOrEmptyIfNotInTeam": (core, request) =>
    rawUnary(core, request, () => new Uint8Array(0)),
  "/aiserver.v1.AnalyticsService/TrackEvents": (core, request) =>
    rawUnary(core, request, () => new Uint8Array(0)),
  "/aiserver.v1.AnalyticsService/BootstrapStatsig": bootstrapStatsig,
};

/** `aiserver.v1.PrivacyMode` numbers by option name. */
const PRIVACY_MODE: Readonly<Record<PrivacyModeName, number>> = {
  "unspecified": 0,
  "no-storage": 1,
  "no-training": 2,
  "usage-data-training-allowed": 3,
  "usage-codebase-training-allowed": 4,
};

/** `GetUserPrivacyModeResponse { #1 privacy_mode }` (nothing for UNSPECIFIED). */
function privacyModeResponse(mode: number): Uint8Array {
  return mode === 0 ? new Uint8Array(0) : new BinaryWriter().uint32(8).int32(mode).finish();
}

/**
 * A unary call answered without generated types (Dashboard, Analytics): the request
 * must be a well-formed protobuf (JSON object for `application/json`); the answer is
 * the bytes `answer` builds (an empty message answers a user outside a team). Each
 * call is logged by the fetch handler.
 */
async function rawUnary(
  core: EmulatorCore,
  request: Request,
  answer: () => Uint8Array,
): Promise<Response> {
  const accepted = await acceptUnaryRequest(core, request, UNARY_BODY_LIMIT, "Request");
  if (accepted instanceof Response) return accepted;
  const { type, body } = accepted;
  try {
    if (type === "application/json") {
      const value: unknown = body.length === 0 ? {} : JSON.parse(new TextDecoder().decode(body));
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw new Error("not a JSON object");
      }
    } else {
      fromBinary(EmptySchema, body);
    }
  } catch (cause) {
    return undecodableRequest("the request", cause);
  }
  // Every field of these answers is optional; the JSON form of the empty message is {}.
  return unaryAnswer(type, type === "application/json" ? "{}" : answer());
}

/**
 * `AnalyticsService/BootstrapStatsig`, which Cursor's client calls with plain JSON
 * (`{}`) and reads `config` (a JSON string) from.
 */
async function bootstrapStatsig(core: EmulatorCore, request: Request): Promise<Response> {
  const accepted = await acceptUnaryRequest(core, request, UNARY_BODY_LIMIT, "Request");
  if (accepted instanceof Response) return accepted;
  const { type, body } = accepted;
  if (type === "application/json") {
    return unaryAnswer(
      type,
      JSON.stringify({ config: STATSIG_CONFIG, generated_at_ms: String(core.options.now()) }),
    );
  }
  try {
    fromBinary(EmptySchema, body);
  } catch (cause) {
    return undecodableRequest("the request", cause);
  }
  return unaryAnswer(
    type,
    new BinaryWriter().uint32(10).string(STATSIG_CONFIG).uint32(16).uint64(core.options.now())
      .finish(),
  );
}

/** An empty Statsig bootstrap: no gates, configs or layers set. */
const STATSIG_CONFIG = JSON.stringify({
  feature_gates: {},
  dynamic_configs: {},
  layer_configs: {},
  has_updates: true,
  time: 0,
});

function serverConfig(core: EmulatorCore, request: Request): Promise<Response> {
  return unary(core, request, GetServerConfigRequestSchema, GetServerConfigResponseSchema, () => {
    const url = announcedAgentUrl(core, request);
    return create(GetServerConfigResponseSchema, {
      configVersion: "emulator-1",
      agentUrlConfig: { agentUrl: url, agentnUrl: url },
      http2Config: HTTP2_CONFIG[core.options.http2Config],
    });
  });
}

/**
 * The agent URL `GetServerConfig` announces: the `agentUrl` option, else the emulator's own
 * URL; a request that reached the emulator over the other scheme (a cleartext front serving
 * the fetch handler of a TLS emulator) is told the origin it reached, so one emulator serves
 * an `http://` and an `https://` client each on its own transport.
 */
function announcedAgentUrl(core: EmulatorCore, request: Request): string {
  if (core.options.agentUrl !== undefined) return core.options.agentUrl;
  const own = core.baseUrl ?? "";
  const reached = new URL(request.url);
  return own !== "" && new URL(own).protocol !== reached.protocol ? reached.origin : own;
}

const HTTP2_CONFIG: Readonly<Record<Http2ConfigName, Http2Config>> = {
  "unspecified": Http2Config.UNSPECIFIED,
  "force-all-disabled": Http2Config.FORCE_ALL_DISABLED,
  "force-all-enabled": Http2Config.FORCE_ALL_ENABLED,
  "force-bidi-disabled": Http2Config.FORCE_BIDI_DISABLED,
  "force-bidi-enabled": Http2Config.FORCE_BIDI_ENABLED,
};

function usableModels(core: EmulatorCore, request: Request): Promise<Response> {
  return unary(
    core,
    request,
    GetUsableModelsRequestSchema,
    GetUsableModelsResponseSchema,
    () => create(GetUsableModelsResponseSchema, { models: core.options.models.map(modelDetails) }),
  );
}

function defaultModel(core: EmulatorCore, request: Request): Promise<Response> {
  return unary(
    core,
    request,
    GetDefaultModelForCliRequestSchema,
    GetDefaultModelForCliResponseSchema,
    () => {
      const model = core.options.models.find((m) => m.id === DEFAULT_MODEL_ID) ??
        core.options.models[0];
      return create(
        GetDefaultModelForCliResponseSchema,
        model === undefined ? {} : { model: modelDetails(model) },
      );
    },
  );
}

async function unary<I extends DescMessage, O extends DescMessage>(
  core: EmulatorCore,
  request: Request,
  input: I,
  output: O,
  handle: (message: MessageShape<I>) => MessageShape<O>,
): Promise<Response> {
  const accepted = await acceptUnaryRequest(core, request, UNARY_BODY_LIMIT, "Request");
  if (accepted instanceof Response) return accepted;
  const { type, body } = accepted;
  let message: MessageShape<I>;
  try {
    message = type === "application/json"
      ? fromJson(input, body.length === 0 ? {} : JSON.parse(new TextDecoder().decode(body)))
      : fromBinary(input, body);
  } catch (cause) {
    return undecodableRequest(input.typeName, cause);
  }
  const answer = handle(message);
  return unaryAnswer(
    type,
    type === "application/json" ? JSON.stringify(toJson(output, answer)) : toBinary(output, answer),
  );
}
