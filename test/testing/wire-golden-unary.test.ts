/**
 * Golden unary exchanges (test/fixtures/wire/unary-json.json) checked against both sides:
 * the exact JSON body the client sends and what it reads from Cursor's answer, and the
 * fields the emulator answers for the same request.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { JsonValue } from "@bufbuild/protobuf";
import { createEmulator } from "../../src/testing/mod.ts";
import { fetchAgentOrigin } from "../../src/transport/server-config.ts";
import { fetchAvailableModels } from "../../src/catalog/available-models.ts";
import { exchangeApiKey } from "../../src/auth/api-key-exchange.ts";

interface UnaryExchange {
  readonly name: string;
  readonly path: string;
  readonly source: readonly string[];
  readonly contentType: string;
  readonly authorization?: string;
  readonly requestBody: string;
  readonly response: JsonValue;
  readonly pinned: readonly string[];
}

const unary = JSON.parse(readFileSync("test/fixtures/wire/unary-json.json", "utf8")) as {
  exchanges: UnaryExchange[];
};

function exchange(name: string): UnaryExchange {
  const found = unary.exchanges.find((entry) => entry.name === name);
  assert.ok(found, `exchange ${name}`);
  return found;
}

function at(value: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>(
    (current, key) =>
      typeof current === "object" && current !== null
        ? (current as Record<string, unknown>)[key]
        : undefined,
    value,
  );
}

/** A fetch that records the one request it gets and answers with the fixture. */
function recordingFetch(entry: UnaryExchange): { fetch: typeof fetch; sent: () => Request } {
  let sent: Request | undefined;
  return {
    fetch: (input, init) => {
      sent = new Request(input, init);
      return Promise.resolve(Response.json(entry.response));
    },
    sent: () => {
      assert.ok(sent, `${entry.name}: the client sent a request`);
      return sent;
    },
  };
}

describe("unary wire fixtures: the client", () => {
  it("every exchange cites its protocol source", () => {
    for (const entry of unary.exchanges) {
      assert.ok(entry.source.every((s) => /\.md §\d/.test(s)), entry.name);
    }
  });

  it("GetServerConfig: sends the golden body and takes agentn_url from the golden answer", async () => {
    const entry = exchange("get-server-config");
    const stub = recordingFetch(entry);
    const origin = await fetchAgentOrigin({
      apiBaseURL: "https://api2.cursor.sh",
      headers: {},
      fetch: stub.fetch,
      allowLoopback: false,
    });
    assert.equal(origin, "https://agentn.golden.cursor.sh");
    assert.equal(new URL(stub.sent().url).pathname, entry.path);
    assert.equal(stub.sent().headers.get("content-type"), entry.contentType);
    assert.equal(await stub.sent().text(), entry.requestBody);
  });

  it("AvailableModels: sends the golden body and reads the golden model", async () => {
    const entry = exchange("available-models");
    const stub = recordingFetch(entry);
    const models = await fetchAvailableModels({
      apiBaseURL: "https://api2.cursor.sh",
      accessToken: "golden.access.token",
      fetch: stub.fetch,
      machineId: "0".repeat(64),
    });
    assert.deepEqual(models.map((model) => model.id), ["composer-1"]);
    assert.equal(new URL(stub.sent().url).pathname, entry.path);
    assert.equal(await stub.sent().text(), entry.requestBody);
  });

  it("API-key exchange: sends the golden body and bearer, reads the golden tokens", async () => {
    const entry = exchange("exchange-api-key");
    const stub = recordingFetch(entry);
    const tokens = await exchangeApiKey("crsr_golden_0123456789", {
      apiBaseURL: "https://api2.cursor.sh",
      fetch: stub.fetch,
    });
    assert.deepEqual(tokens, {
      accessToken: "golden.access.token",
      refreshToken: "golden.refresh.token",
    });
    assert.equal(new URL(stub.sent().url).pathname, entry.path);
    assert.equal(stub.sent().headers.get("authorization"), entry.authorization);
    assert.equal(await stub.sent().text(), entry.requestBody);
  });
});

describe("unary wire fixtures: the emulator", () => {
  it("answers each golden request with the fields the client relies on", async () => {
    const emulator = await createEmulator({
      auth: { required: false },
      agentUrl: "https://agent.golden.cursor.sh",
    });
    try {
      for (const entry of unary.exchanges) {
        const response = await emulator.fetch(
          new Request(`http://emulator.test${entry.path}`, {
            method: "POST",
            headers: {
              "content-type": entry.contentType,
              ...(entry.authorization === undefined ? {} : { authorization: entry.authorization }),
            },
            body: entry.requestBody,
          }),
        );
        assert.equal(response.status, 200, entry.name);
        assert.equal(response.headers.get("content-type"), "application/json", entry.name);
        const body: unknown = await response.json();
        for (const path of entry.pinned) {
          const value = at(body, path);
          assert.ok(
            (typeof value === "string" && value !== "") || typeof value === "number",
            `${entry.name}: ${path} is answered`,
          );
          assert.equal(typeof value, typeof at(entry.response, path), `${entry.name}: ${path}`);
        }
      }
    } finally {
      await emulator.close();
    }
  });
});
