import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  bearerOf,
  createRenewOnce,
  refusesToken,
  type RenewRefusedToken,
  withBearer,
} from "../../src/transport/renew-once.ts";

/** A stub credentials hook that records the tokens it was told were refused. */
function recordingHook(answer: (token: string) => Promise<string>) {
  const refused: string[] = [];
  const signals: (AbortSignal | undefined)[] = [];
  const hook: RenewRefusedToken = (token, signal) => {
    refused.push(token);
    signals.push(signal);
    return answer(token);
  };
  return { hook, refused, signals };
}

/** A stub server: answers 401 unless the token is one it accepts; records what was sent. */
function stubServer(accepted: readonly string[]) {
  const sent: string[] = [];
  const released: number[] = [];
  return {
    sent,
    released,
    resend(token: string): Promise<number> {
      sent.push(token);
      return Promise.resolve(accepted.includes(token) ? 200 : 401);
    },
    release(status: number) {
      released.push(status);
    },
  };
}

const STALE = { authorization: "Bearer stale", "x-other": "kept" };

describe("renew once: a 401 re-sent with a renewed token", () => {
  it("renews a refused token once and returns the answer to the request sent again", async () => {
    const credentials = recordingHook(() => Promise.resolve("fresh"));
    const server = stubServer(["fresh"]);
    const renewal = createRenewOnce(credentials.hook);
    const answer = await renewal.settle(401, {
      sent: STALE,
      refused: refusesToken,
      resend: (token) => server.resend(token),
      release: (status) => server.release(status),
    });
    assert.equal(answer, 200);
    assert.deepEqual(credentials.refused, ["stale"]);
    assert.deepEqual(server.sent, ["fresh"]);
    assert.deepEqual(server.released, [401], "the refused answer is let go before the re-send");
    assert.equal(renewal.mayRenew, false);
  });

  it("does not renew again when the renewed token is refused too", async () => {
    const credentials = recordingHook((token) => Promise.resolve(`${token}+1`));
    const server = stubServer([]);
    const renewal = createRenewOnce(credentials.hook);
    const handling = {
      sent: STALE,
      refused: refusesToken,
      resend: (token: string) => server.resend(token),
    };
    const answer = await renewal.settle(401, handling);
    assert.equal(answer, 401, "the second 401 is the caller's");
    // The same Run asking again (its re-opened stream refused) gets the refusal back.
    assert.equal(
      await renewal.settle(401, { ...handling, sent: { authorization: "Bearer stale+1" } }),
      401,
    );
    assert.deepEqual(credentials.refused, ["stale"]);
    assert.deepEqual(server.sent, ["stale+1"]);
  });

  it("leaves the 401 when the renewal hands back the refused token", async () => {
    const credentials = recordingHook((token) => Promise.resolve(token));
    const server = stubServer(["stale"]);
    const renewal = createRenewOnce(credentials.hook);
    const answer = await renewal.settle(401, {
      sent: STALE,
      refused: refusesToken,
      resend: (token) => server.resend(token),
      release: (status) => server.release(status),
    });
    assert.equal(answer, 401);
    assert.deepEqual(credentials.refused, ["stale"]);
    assert.deepEqual(server.sent, [], "nothing is sent again");
    assert.deepEqual(server.released, [], "the refused answer is still the caller's to read");
    assert.equal(renewal.mayRenew, false);
  });

  it("leaves the 401 when the renewal fails", async () => {
    const credentials = recordingHook(() => Promise.reject(new Error("refresh token revoked")));
    const server = stubServer(["fresh"]);
    const answer = await createRenewOnce(credentials.hook).settle(401, {
      sent: STALE,
      refused: refusesToken,
      resend: (token) => server.resend(token),
    });
    assert.equal(answer, 401);
    assert.deepEqual(server.sent, []);
  });

  it("does not ask for a renewal when the request carried no bearer token", async () => {
    const credentials = recordingHook(() => Promise.resolve("fresh"));
    const server = stubServer(["fresh"]);
    const answer = await createRenewOnce(credentials.hook).settle(401, {
      sent: { authorization: "Basic abc" },
      refused: refusesToken,
      resend: (token) => server.resend(token),
    });
    assert.equal(answer, 401);
    assert.deepEqual(credentials.refused, []);
    assert.deepEqual(server.sent, []);
  });

  it("passes an answer that is not a refusal through, keeping the renewal for later", async () => {
    const credentials = recordingHook(() => Promise.resolve("fresh"));
    const server = stubServer(["fresh"]);
    const renewal = createRenewOnce(credentials.hook);
    for (const status of [200, 403, 500]) {
      const answer = await renewal.settle(status, {
        sent: STALE,
        refused: refusesToken,
        resend: (token) => server.resend(token),
      });
      assert.equal(answer, status);
    }
    assert.deepEqual(credentials.refused, []);
    assert.equal(renewal.mayRenew, true);
  });

  it("cannot renew without a hook", async () => {
    const server = stubServer(["fresh"]);
    const renewal = createRenewOnce(undefined);
    assert.equal(renewal.mayRenew, false);
    const answer = await renewal.settle(401, {
      sent: STALE,
      refused: refusesToken,
      resend: (token) => server.resend(token),
    });
    assert.equal(answer, 401);
    assert.deepEqual(server.sent, []);
  });

  it("gives the hook the caller's signal and fails with the re-send's error", async () => {
    const credentials = recordingHook(() => Promise.resolve("fresh"));
    const signal = new AbortController().signal;
    await assert.rejects(
      createRenewOnce(credentials.hook).settle(401, {
        sent: new Headers(STALE),
        refused: refusesToken,
        resend: () => Promise.reject(new Error("connection reset")),
        signal,
      }),
      /connection reset/,
    );
    assert.deepEqual(credentials.signals, [signal]);
  });

  it("counts only 401 as a refused token", () => {
    assert.equal(refusesToken(401), true);
    for (const status of [200, 400, 403, 464, 500]) assert.equal(refusesToken(status), false);
  });
});

describe("renew once: the bearer helpers", () => {
  it("reads the bearer token whatever the case of the header's name", () => {
    assert.equal(bearerOf({ Authorization: "Bearer abc" }), "abc");
    assert.equal(bearerOf({ AUTHORIZATION: "Bearer a.b.c" }), "a.b.c");
    assert.equal(bearerOf(new Headers({ Authorization: "Bearer xyz" })), "xyz");
    assert.equal(bearerOf({ authorization: "Basic abc" }), undefined);
    assert.equal(bearerOf({ accept: "*/*" }), undefined);
    assert.equal(bearerOf(new Headers()), undefined);
  });

  it("replaces the authorization header case-insensitively and keeps the others", () => {
    const original = { Authorization: "Bearer old", "x-cursor-checksum": "sum" };
    const renewed = withBearer(original, "new");
    assert.deepEqual(renewed, { "x-cursor-checksum": "sum", authorization: "Bearer new" });
    assert.equal(original.Authorization, "Bearer old", "the original headers are not changed");
    assert.deepEqual(withBearer({ AUTHORIZATION: "Bearer old" }, "new"), {
      authorization: "Bearer new",
    });
    assert.deepEqual(withBearer({}, "new"), { authorization: "Bearer new" });
  });

  it("replaces the authorization of a Headers object in a copy", () => {
    const original = new Headers({ Authorization: "Bearer old", accept: "*/*" });
    const renewed = withBearer(original, "new");
    assert.equal(renewed.get("authorization"), "Bearer new");
    assert.equal(renewed.get("accept"), "*/*");
    assert.equal(original.get("authorization"), "Bearer old");
  });
});
