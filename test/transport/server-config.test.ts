import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fetchServerConfig } from "../../src/transport/server-config.ts";

/** `GetServerConfig` answering `http2Config` as given (absent when `undefined`). */
function lookup(http2Config: unknown) {
  const answer = {
    agentUrlConfig: { agentnUrl: "https://agentn.api5.cursor.sh" },
    ...(http2Config === undefined ? {} : { http2Config }),
  };
  return fetchServerConfig({
    apiBaseURL: "https://api2.cursor.sh",
    headers: {},
    fetch: () => Promise.resolve(Response.json(answer)),
    allowLoopback: false,
  });
}

describe("GetServerConfig's http2_config", () => {
  const cases: [unknown, "allowed" | "disabled"][] = [
    [undefined, "allowed"],
    ["HTTP2_CONFIG_UNSPECIFIED", "allowed"],
    ["HTTP2_CONFIG_FORCE_ALL_DISABLED", "disabled"],
    ["HTTP2_CONFIG_FORCE_ALL_ENABLED", "allowed"],
    ["HTTP2_CONFIG_FORCE_BIDI_DISABLED", "disabled"],
    ["HTTP2_CONFIG_FORCE_BIDI_ENABLED", "allowed"],
    [0, "allowed"],
    [1, "disabled"],
    [2, "allowed"],
    [3, "disabled"],
    ["SOMETHING_NEW", "allowed"],
    [{ nested: true }, "allowed"],
  ];
  for (const [value, directive] of cases) {
    it(`reads ${JSON.stringify(value) ?? "no field"} as ${directive}`, async () => {
      const config = await lookup(value);
      assert.equal(config.http2, directive);
      assert.equal(config.agentOrigin, "https://agentn.api5.cursor.sh");
    });
  }
});
