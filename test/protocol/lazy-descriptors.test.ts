/**
 * Descriptors built on first use (src/protocol/lazy-descriptors.ts), which the npm build
 * puts under every generated module: they build nothing until used, then encode and decode
 * the golden wire frames exactly as the eager descriptors do; and the build step that
 * points the compiled generated modules at them.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  create,
  type DescFile,
  type DescMessage,
  fromBinary,
  fromJson,
  isMessage,
  type JsonValue,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import {
  builtDescriptor,
  enumDesc,
  fileDesc,
  fileDescFromProto,
  messageDesc,
  serviceDesc,
} from "../../src/protocol/lazy-descriptors.ts";
import { file_agent_v1_client_message } from "../../src/gen/agent/v1/client_message_pb.ts";
import { file_agent_v1_server_message } from "../../src/gen/agent/v1/server_message_pb.ts";
import { file_agent_v1_agent_service } from "../../src/gen/agent/v1/agent_service_pb.ts";
import { file_aiserver_v1_bidi } from "../../src/gen/aiserver/v1/bidi_pb.ts";
import { deferDescriptorImports } from "../../scripts/lib/lazy-descriptor-imports.ts";
import { descriptorJson, preDecodeFileDescs } from "../../scripts/lib/pre-decoded-descriptors.ts";
import { bytesToHex, hexToBytes } from "../../src/core/bytes.ts";

interface FrameFixture {
  readonly name: string;
  readonly schema: string;
  readonly message: JsonValue;
  readonly payloadHex: string;
}

/** The golden frames that carry a protobuf message (end-of-stream frames carry JSON). */
const frames = (JSON.parse(readFileSync("test/fixtures/wire/agent-frames.json", "utf8")) as {
  frames: Partial<FrameFixture>[];
}).frames.filter((frame): frame is FrameFixture => frame.schema !== undefined);

/**
 * Lazy copies of an eager file and everything it imports, as the npm build makes them:
 * from base64 as codegenv2 embeds them, or pre-decoded as JSON (ADR 201).
 */
function lazyCopies(
  roots: readonly DescFile[],
  form: "base64" | "json" = "base64",
): Map<string, DescFile> {
  const copies = new Map<string, DescFile>();
  const copy = (file: DescFile): DescFile => {
    const known = copies.get(file.name);
    if (known) return known;
    const bytes = toBinary(FileDescriptorProtoSchema, file.proto);
    const imports = file.dependencies.map(copy);
    const lazy = form === "json"
      ? fileDescFromProto(descriptorJson(file), imports)
      : fileDesc(base64Encode(bytes, "std_raw"), imports);
    copies.set(file.name, lazy);
    return lazy;
  };
  roots.forEach(copy);
  return copies;
}

/** The lazy message descriptor standing for an eager one, found by its index path. */
function lazyMessage(copies: Map<string, DescFile>, eager: DescMessage): DescMessage {
  const path: number[] = [];
  for (let desc: DescMessage | undefined = eager; desc; desc = desc.parent) {
    const siblings = desc.parent ? desc.parent.nestedMessages : desc.file.messages;
    path.unshift(siblings.indexOf(desc));
  }
  const file = copies.get(eager.file.name);
  assert.ok(file, eager.file.name);
  const [first = 0, ...rest] = path;
  return messageDesc(file, first, ...rest);
}

function eagerMessage(typeName: string, roots: readonly DescFile[]): DescMessage {
  const seen = new Set<DescFile>();
  const visit = (file: DescFile): DescMessage | undefined => {
    if (seen.has(file)) return undefined;
    seen.add(file);
    const found = file.messages.find((message) => message.typeName === typeName);
    return found ?? file.dependencies.map(visit).find((message) => message !== undefined);
  };
  const found = roots.map(visit).find((message) => message !== undefined);
  assert.ok(found, typeName);
  return found;
}

/** Every golden frame decodes, re-encodes and converts through `copies` as through the eager. */
function expectGoldenFrames(copies: Map<string, DescFile>): void {
  for (const frame of frames) {
    const eager = eagerMessage(frame.schema, ROOTS);
    const lazy = lazyMessage(copies, eager);
    assert.notEqual(lazy, eager);
    assert.equal(lazy.typeName, frame.schema);
    const payload = hexToBytes(frame.payloadHex);
    assert.ok(payload, frame.name);
    const decoded = fromBinary(lazy, payload);
    assert.deepEqual(
      toJson(lazy, decoded),
      toJson(eager, fromBinary(eager, payload)),
      frame.name,
    );
    assert.equal(bytesToHex(toBinary(lazy, decoded)), frame.payloadHex, frame.name);
    assert.deepEqual(
      toBinary(lazy, fromJson(lazy, frame.message)),
      toBinary(eager, fromJson(eager, frame.message)),
      frame.name,
    );
    assert.ok(isMessage(decoded, eager), "messages of both are the same type");
  }
}

const ROOTS = [file_agent_v1_client_message, file_agent_v1_server_message, file_aiserver_v1_bidi];

describe("descriptors built on first use", () => {
  it("build nothing when created: a broken descriptor fails only at its first use", () => {
    const file = fileDesc("not a descriptor");
    const message = messageDesc(file, 0);
    assert.throws(() => message.typeName);
    assert.throws(() => file.name);
  });

  for (const form of ["base64", "json"] as const) {
    it(`encode and decode every golden wire frame byte for byte like the eager descriptors (${form})`, () => {
      expectGoldenFrames(lazyCopies(ROOTS, form));
    });
  }

  it("answer reads, `in`, key listing and the prototype like the descriptor they stand for", () => {
    const copies = lazyCopies([file_agent_v1_agent_service]);
    const lazyFile = copies.get(file_agent_v1_agent_service.name);
    assert.ok(lazyFile);
    const service = serviceDesc(lazyFile, 0);
    const eagerService = file_agent_v1_agent_service.services[0];
    assert.ok(eagerService);
    assert.deepEqual(Object.keys(service), Object.keys(eagerService));
    assert.ok("methods" in service);
    assert.equal(Object.getPrototypeOf(service), Object.getPrototypeOf(eagerService));
    assert.deepEqual(service.methods.map((m) => m.name), eagerService.methods.map((m) => m.name));
    assert.equal(builtDescriptor(service).kind, "service");
    assert.notEqual(builtDescriptor(service), service, "the stand-in hands out what it built");
    assert.equal(builtDescriptor(eagerService), eagerService);
    const enumFile = ROOTS.map((root) => root.dependencies).flat().find((f) => f.enums.length > 0);
    assert.ok(enumFile, "a generated file declaring an enum");
    const lazyEnum = enumDesc(lazyCopies([enumFile]).get(enumFile.name) ?? enumFile, 0);
    assert.deepEqual(
      lazyEnum.values.map((v) => v.number),
      enumFile.enums[0]?.values.map((v) => v.number),
    );
  });

  it("create messages whose type is the generated one", () => {
    const copies = lazyCopies(ROOTS);
    const eager = eagerMessage("agent.v1.AgentClientMessage", ROOTS);
    const message = create(lazyMessage(copies, eager), {});
    assert.equal(message.$typeName, "agent.v1.AgentClientMessage");
  });
});

describe("the build step that pre-decodes the generated descriptors", () => {
  it("replaces each base64 file descriptor with its JSON and imports the function for it", () => {
    const compiled = [
      'import { fileDesc, messageDesc } from "../../../protocol/lazy-descriptors.js";',
      'export const file_x = /*@__PURE__*/ fileDesc("AAAA", [file_agent_v1_common]);',
    ].join("\n");
    assert.equal(
      preDecodeFileDescs(compiled, (name) => `{"name":"${name}"}`),
      [
        'import { messageDesc, fileDescFromProto } from "../../../protocol/lazy-descriptors.js";',
        'export const file_x = /*@__PURE__*/ fileDescFromProto("{\\"name\\":\\"file_x\\"}", [file_agent_v1_common]);',
      ].join("\n"),
    );
    const plain = 'import { create } from "@bufbuild/protobuf";\nexport const x = 1;\n';
    assert.equal(preDecodeFileDescs(plain, () => "{}"), plain);
  });
});

describe("the build step that defers the generated descriptors", () => {
  const compiled = [
    'import { enumDesc, fileDesc, messageDesc } from "@bufbuild/protobuf/codegenv2";',
    'import { file_agent_v1_common } from "./common_pb.js";',
    'export const file_x = /*@__PURE__*/ fileDesc("AAAA", [file_agent_v1_common]);',
  ].join("\n");

  it("points the codegenv2 import at the lazy module and changes nothing else", () => {
    const rewritten = deferDescriptorImports(compiled, "../../../protocol/lazy-descriptors.js");
    assert.equal(
      rewritten,
      compiled.replace(
        '"@bufbuild/protobuf/codegenv2"',
        '"../../../protocol/lazy-descriptors.js"',
      ),
    );
  });

  it("fails on a codegenv2 function the lazy module does not provide", () => {
    const withExtension = compiled.replace("enumDesc,", "enumDesc, extDesc,");
    assert.throws(() => deferDescriptorImports(withExtension, "./lazy.js"), /extDesc/);
  });

  it("leaves a module that builds no descriptor as it is", () => {
    const plain = 'import { create } from "@bufbuild/protobuf";\nexport const x = 1;\n';
    assert.equal(deferDescriptorImports(plain, "./lazy.js"), plain);
  });
});
