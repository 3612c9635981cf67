import { describe, it } from "node:test";
import assert from "node:assert/strict";
import https from "node:https";
import http2 from "node:http2";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { create, toBinary } from "@bufbuild/protobuf";
import { AgentClientMessageSchema } from "../../src/gen/agent/v1/client_message_pb.ts";
import { encodeEnvelope, FLAG_COMPRESSED } from "../../src/protocol/envelope.ts";
import { startHarness } from "./support/harness.ts";
import { driveTurn, newHostState, requestContext, runRequestBytes } from "./support/host.ts";
import { openHttp2Run, openSseRun } from "./support/minimal-client.ts";

const FIXTURES = `${process.cwd()}/test/testing/fixtures`;

function httpsRequest(
  url: string,
  path: string,
  ca: string,
): Promise<{ status: number; body: string; alpn: string }> {
  return new Promise((resolve, reject) => {
    const request = https.request(`${url}${path}`, {
      method: "POST",
      agent: new https.Agent({ ca, ALPNProtocols: ["http/1.1"] }),
      headers: { "content-type": "application/json" },
    }, (response) => {
      let body = "";
      response.on("data", (chunk) => (body += chunk));
      const socket: unknown = response.socket;
      const alpn = typeof socket === "object" && socket !== null && "alpnProtocol" in socket
        ? String(socket.alpnProtocol)
        : "";
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body, alpn }));
    });
    request.on("error", reject);
    request.end("{}");
  });
}

describe("transports", () => {
  it("serves a turn over RunSSE with hex, binary and JSON appends", async () => {
    const harness = await startHarness();
    try {
      for (const encoding of ["hex", "binary", "json"] as const) {
        const outcome = await driveTurn(harness.target("sse"), newHostState(), {
          text: "::shell echo x",
        }, { appendEncoding: encoding });
        assert.ok(outcome.turnEnded, `turn ended with ${encoding} appends`);
        assert.match(outcome.text, /exited 0: x/);
      }
      assert.deepEqual(harness.emulator.runs().map((run) => run.variants.appendEncoding), [
        "hex",
        "binary",
        "json",
      ]);
      assert.deepEqual(harness.emulator.violations(), []);
    } finally {
      await harness.emulator.close();
    }
  });

  it("orders concurrent out-of-order appends by append_seqno, including appends before RunSSE", async () => {
    const harness = await startHarness();
    try {
      const target = harness.target("sse");
      const requestId = crypto.randomUUID();
      const heartbeat = create(AgentClientMessageSchema, {
        message: { case: "clientHeartbeat", value: {} },
      });
      const runRequest = runRequestBytes({ text: "hi" }, requestContext());
      const { postAppend } = await import("./support/minimal-client.ts");
      // seqno 2 and 1 arrive before 0, and all before the RunSSE is opened
      await Promise.all([
        postAppend(target, requestId, 2, toBinary(AgentClientMessageSchema, heartbeat), "hex"),
        postAppend(target, requestId, 1, toBinary(AgentClientMessageSchema, heartbeat), "hex"),
      ]);
      await postAppend(target, requestId, 0, runRequest, "hex");
      const run = openSseRun(target, requestId);
      const first = await run.next();
      assert.equal(first.kind, "message");
      assert.equal(first.kind === "message" ? first.message.message.case : "", "execServerMessage");
      run.close();
      await harness.emulator.idle();
      assert.deepEqual(
        harness.emulator.violations().filter((v) => v.rule.startsWith("append")),
        [],
      );
      assert.equal(harness.emulator.runs()[0]?.clientHeartbeats, 2);
    } finally {
      await harness.emulator.close();
    }
  });

  it("serves RunSSE through the node:http adapter too", async () => {
    const harness = await startHarness({ server: "node" });
    try {
      assert.equal(harness.emulator.server, "node");
      const outcome = await driveTurn(harness.target("sse"), newHostState(), { text: "plain" });
      assert.ok(outcome.turnEnded);
    } finally {
      await harness.emulator.close();
    }
  });

  it("serves the bidi Run over h2c and answers HTTP/1.1 Run with 464", async () => {
    const harness = await startHarness();
    try {
      assert.ok(harness.emulator.http2Url?.startsWith("http://"));
      const outcome = await driveTurn(harness.target("http2"), newHostState(), {
        text: "::read /ws/README.md",
      });
      assert.match(outcome.text, /read `\/ws\/README.md`: # Demo/);
      const legacy = await fetch(`${harness.emulator.url}/agent.v1.AgentService/Run`, {
        method: "POST",
        headers: { "content-type": "application/connect+proto" },
        body: new Uint8Array(0),
      });
      await legacy.arrayBuffer();
      assert.equal(legacy.status, 464);
      assert.equal(harness.emulator.runs()[0]?.transport, "http2");
    } finally {
      await harness.emulator.close();
    }
  });

  it("serves everything over TLS with ALPN h2 and http/1.1 on one URL", async () => {
    const cert = readFileSync(`${FIXTURES}/localhost-cert.pem`, "utf8");
    const key = readFileSync(`${FIXTURES}/localhost-key.pem`, "utf8");
    const harness = await startHarness({ tls: { cert, key }, auth: { required: false } });
    try {
      const { url, http2Url } = harness.emulator;
      assert.ok(url.startsWith("https://"));
      assert.equal(http2Url, url);
      const outcome = await driveTurn({ ...harness.target("http2"), ca: cert }, newHostState(), {
        text: "::ls /ws",
      });
      assert.match(outcome.text, /README.md/);
      const run = await httpsRequest(url, "/agent.v1.AgentService/Run", cert);
      assert.equal(run.status, 464);
      assert.equal(run.alpn, "http/1.1");
      const models = await httpsRequest(url, "/aiserver.v1.AiService/AvailableModels", cert);
      assert.equal(models.status, 200);
      assert.match(models.body, /claude-4.5-sonnet/);
    } finally {
      await harness.emulator.close();
    }
  });

  it("accepts gzip-compressed client frames when the client declares gzip", async () => {
    const harness = await startHarness();
    try {
      const run = openHttp2Run(harness.target("http2"), crypto.randomUUID(), {
        "connect-content-encoding": "gzip",
      });
      const compressed = gzipSync(runRequestBytes({ text: "zipped" }, requestContext()));
      run.sendRaw(encodeEnvelope(new Uint8Array(compressed), FLAG_COMPRESSED));
      const frame = await run.next();
      assert.equal(
        frame.kind === "message" ? frame.message.message.case : frame.kind,
        "execServerMessage",
      );
      run.close();
      await harness.emulator.idle();
      assert.equal(harness.emulator.runs()[0]?.variants.compressedFrames, true);
    } finally {
      await harness.emulator.close();
    }
  });

  it("keeps an HTTP/2 session usable for several Runs", async () => {
    const harness = await startHarness();
    try {
      const session = http2.connect(harness.emulator.http2Url ?? "");
      session.close();
      for (let i = 0; i < 3; i++) {
        const outcome = await driveTurn(harness.target("http2"), newHostState(), {
          text: `turn ${i}`,
        });
        assert.ok(outcome.turnEnded);
      }
    } finally {
      await harness.emulator.close();
    }
  });
});
