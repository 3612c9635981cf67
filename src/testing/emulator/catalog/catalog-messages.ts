/**
 * The catalogue rendered as the wire messages of the model-listing RPCs.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  type AvailableModelsRequest,
  type AvailableModelsResponse,
  type AvailableModelsResponse_AvailableModel,
  AvailableModelsResponse_AvailableModelSchema,
  AvailableModelsResponseSchema,
  FeatureModelConfigSchema,
  type ModelParameterDefinition,
  ModelParameterDefinitionSchema,
  type ModelVariant,
  ModelVariantSchema,
} from "../../../gen/aiserver/v1/ai_service_pb.ts";
import { type ModelDetails, ModelDetailsSchema } from "../../../gen/agent/v1/model_pb.ts";
import type { CatalogModel, CatalogParameter, CatalogVariant } from "./catalog.ts";
import { DEFAULT_MODEL_ID, parseContextSize } from "./catalog.ts";

/**
 * Builds the `AvailableModels` response. Without `use_model_parameters` the response
 * carries no variants or parameter definitions, like older server answers.
 *
 * @param catalog The models.
 * @param request The request (flags decide what is included).
 * @returns The response message.
 */
export function availableModelsResponse(
  catalog: readonly CatalogModel[],
  request: AvailableModelsRequest,
): AvailableModelsResponse {
  const models = catalog.map((model) => availableModel(model, request.useModelParameters));
  const defaultId = catalog.some((model) => model.id === DEFAULT_MODEL_ID)
    ? DEFAULT_MODEL_ID
    : catalog[0]?.id ?? "";
  const feature = create(FeatureModelConfigSchema, {
    defaultModel: defaultId,
    fallbackModels: catalog.filter((model) => model.id !== defaultId).map((model) => model.id),
  });
  return create(AvailableModelsResponseSchema, {
    modelNames: catalog.map((model) => model.id),
    models,
    composerModelConfig: feature,
    cmdKModelConfig: feature,
    backgroundComposerModelConfig: feature,
    planExecutionModelConfig: feature,
    quickAgentModelConfig: feature,
  });
}

function availableModel(
  model: CatalogModel,
  withParameters: boolean,
): AvailableModelsResponse_AvailableModel {
  const maxWindow = maxModeWindow(model);
  return create(AvailableModelsResponse_AvailableModelSchema, {
    name: model.id,
    defaultOn: true,
    supportsAgent: true,
    supportsThinking: model.thinking,
    supportsImages: model.images,
    supportsMaxMode: model.maxMode,
    supportsNonMaxMode: model.nonMaxMode,
    supportsPlanMode: true,
    contextTokenLimit: model.contextTokens,
    ...(maxWindow === undefined ? {} : { contextTokenLimitForMaxMode: maxWindow }),
    clientDisplayName: model.displayName,
    serverModelName: model.id,
    inputboxShortModelName: model.displayName,
    isLongContextOnly: model.variants.length > 0 &&
      model.variants.every((v) => v.parameters.context === "1m"),
    parameterDefinitions: withParameters ? model.parameters.map(parameterDefinition) : [],
    variants: withParameters ? model.variants.map((v) => modelVariant(model, v)) : [],
  });
}

function maxModeWindow(model: CatalogModel): number | undefined {
  const windows = model.variants
    .filter((v) => v.maxMode && v.parameters.context !== undefined)
    .map((v) => parseContextSize(v.parameters.context ?? "") ?? 0);
  if (windows.length > 0) return Math.max(...windows);
  return model.maxMode ? model.contextTokens : undefined;
}

function parameterDefinition(parameter: CatalogParameter): ModelParameterDefinition {
  const values = parameter.values.map((value) => ({ value, displayName: value }));
  return create(ModelParameterDefinitionSchema, {
    id: parameter.id,
    name: parameter.name,
    parameterType: {
      type: parameter.kind === "boolean"
        ? { case: "booleanParameter", value: { values } }
        : { case: "enumParameter", value: { values } },
    },
  });
}

function modelVariant(model: CatalogModel, variant: CatalogVariant): ModelVariant {
  const slug = [
    model.id,
    ...Object.entries(variant.parameters)
      .filter(([, value]) => value !== "false")
      .map(([key, value]) => value === "true" ? key : value),
  ].join("-");
  return create(ModelVariantSchema, {
    parameterValues: Object.entries(variant.parameters).map(([id, value]) => ({ id, value })),
    displayName: variant.displayName,
    isMaxMode: variant.maxMode,
    ...(variant.defaultMax === undefined ? {} : { isDefaultMaxConfig: variant.defaultMax }),
    ...(variant.defaultNonMax === undefined
      ? {}
      : { isDefaultNonMaxConfig: variant.defaultNonMax }),
    variantStringRepresentation: slug,
  });
}

/**
 * Renders a model as `agent.v1.ModelDetails` (for `GetUsableModels` and
 * `GetDefaultModelForCli`).
 *
 * @param model The model.
 * @returns The details message.
 */
export function modelDetails(model: CatalogModel): ModelDetails {
  return create(ModelDetailsSchema, {
    modelId: model.id,
    displayModelId: model.id,
    displayName: model.displayName,
    displayNameShort: model.displayName,
    ...(model.thinking ? { thinkingDetails: {} } : {}),
    ...(model.maxMode && !model.nonMaxMode ? { maxMode: true } : {}),
  });
}
