import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CursorError } from "../../src/core/cursor-error.ts";
import { proxyFor } from "../../src/transport/proxy-rules.ts";
import { proxyAwareFetch } from "../../src/adapters/node/proxy/proxy-aware-fetch.ts";

const CURSOR = "https://api2.cursor.sh/aiserver.v1.AiService/AvailableModels";

describe("proxy rules", () => {
  it("reads https_proxy before HTTPS_PROXY, and proxies only https", () => {
    const env = { https_proxy: "http://lower:8080", HTTPS_PROXY: "http://upper:8080" };
    assert.equal(proxyFor(CURSOR, env)?.display, "http://lower:8080");
    assert.equal(proxyFor(CURSOR, { HTTPS_PROXY: "proxy.corp:3128" })?.port, 3128);
    assert.equal(proxyFor("http://127.0.0.1:8787/x", env), undefined);
    assert.equal(proxyFor(CURSOR, {}), undefined);
  });

  it("turns credentials into a header and never shows them", () => {
    const route = proxyFor(CURSOR, { HTTPS_PROXY: "http://ann%40corp:p%3Ass@proxy:3128" });
    assert.equal(route?.display, "http://proxy:3128");
    assert.equal(route?.authorization, `Basic ${btoa("ann@corp:p:ss")}`);
  });

  it("lets NO_PROXY hosts, suffixes, ports and * go direct", () => {
    const via = (noProxy: string, url = CURSOR) =>
      proxyFor(url, { HTTPS_PROXY: "http://proxy:3128", NO_PROXY: noProxy }) !== undefined;
    assert.equal(via("cursor.sh"), false);
    assert.equal(via(".cursor.sh"), false);
    assert.equal(via("*.cursor.sh"), false);
    assert.equal(via("api2.cursor.sh:443"), false);
    assert.equal(via("api2.cursor.sh:8443"), true);
    assert.equal(via("notcursor.sh, example.com"), true);
    assert.equal(via("*"), false);
    assert.equal(via("127.0.0.1", "https://127.0.0.1:9/x"), false);
    assert.equal(via("[::1]:9", "https://[::1]:9/x"), false);
  });

  it("refuses a proxy it cannot use with a config error", () => {
    assert.throws(
      () => proxyFor(CURSOR, { HTTPS_PROXY: "socks5://user:pw@proxy:1080" }),
      (error: unknown) =>
        error instanceof CursorError && error.code === "config" &&
        error.message ===
          'Proxy "socks5://proxy:1080" is not supported: use an http:// proxy (CONNECT)',
    );
  });

  it("gives the Node entry a proxied fetch on Node only, and only with a proxy set", () => {
    const runtime = globalThis as { Bun?: unknown; Deno?: unknown };
    const onNode = runtime.Bun === undefined && runtime.Deno === undefined;
    assert.equal(proxyAwareFetch({}), undefined);
    assert.equal(
      typeof proxyAwareFetch({ HTTPS_PROXY: "http://proxy:3128" }),
      onNode ? "function" : "undefined",
    );
  });
});
