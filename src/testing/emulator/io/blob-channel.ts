/**
 * The server side of the KV channel: SET blobs into the client's store (and wait for
 * each `set_blob_result` before anything references them) and GET blobs a checkpoint
 * references that the server does not hold (verifying each hashes to its id). A blob is
 * held when the server's cache of the conversation has it (see `blob-cache.ts`; none for
 * a cold server) or the client pushed it in `pre_fetched_blobs` (verified up front: a
 * pushed blob that does not hash to its id refuses the Run with `invalid_argument`). A
 * blob the client cannot serve ends the Run the way the service does: Connect
 * `internal`, "Blob not found".
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import { AgentServerMessageSchema } from "../../../gen/agent/v1/server_message_pb.ts";
import type { PreFetchedBlob } from "../../../gen/agent/v1/run_request_pb.ts";
import { bytesToHex, sha256 } from "../../../core/bytes.ts";
import { RunFailure } from "../wire/connect-http.ts";
import type { RunIo } from "./run-io.ts";

/** The blobs the server itself holds for the conversation (its cache; see `conversation/blob-cache.ts`). */
export interface HeldBlobs {
  /** The blob, when the server still holds it. */
  get(idHex: string): Uint8Array | undefined;
  /** Keeps a blob (its id already verified). */
  put(idHex: string, data: Uint8Array): void;
}

/** The Run's blob traffic. */
export class BlobChannel<Held extends HeldBlobs = HeldBlobs> {
  readonly #io: RunIo;
  /** Ids (hex) the client is known to hold: set or served in this Run. */
  readonly #known = new Set<string>();
  readonly #queue: { id: Uint8Array; data: Uint8Array }[] = [];
  /** Results of SETs sent but not yet awaited. */
  readonly #unacknowledged: Promise<void>[] = [];
  readonly #preFetched = new Map<string, Uint8Array>();
  readonly #cache: Held | undefined;

  /**
   * @param io The Run.
   * @param cache The server's blobs of this conversation; `undefined` for a cold server.
   */
  constructor(io: RunIo, cache: Held | undefined) {
    this.#io = io;
    this.#cache = cache;
  }

  /** The server's own blobs of this conversation; `undefined` for a cold server. */
  get server(): Held | undefined {
    return this.#cache;
  }

  /** Counts blobs a Run needed that the server held (as cache hits). */
  noteHeld(count: number): void {
    this.#io.record.kv.cacheHits += count;
  }

  /**
   * Takes the blobs the client pushed in `pre_fetched_blobs`, each verified against its id.
   *
   * @throws {RunFailure} `invalid_argument` for an id that is not 32 bytes or data that
   *   does not hash to it.
   */
  async acceptPreFetched(blobs: readonly PreFetchedBlob[]): Promise<void> {
    if (blobs.length === 0) return;
    this.#io.variant("preFetchedBlobs", true);
    for (const blob of blobs) {
      const hex = bytesToHex(blob.id);
      const hash = await sha256(blob.value);
      if (blob.id.length !== 32 || bytesToHex(hash) !== hex) {
        throw new RunFailure({
          code: "invalid_argument",
          message: `Pre-fetched blob ${
            JSON.stringify(hex.slice(0, 16))
          } does not hash to its id (sha256 ${bytesToHex(hash).slice(0, 16)})`,
        });
      }
      this.#preFetched.set(hex, blob.value);
    }
  }

  /**
   * Queues a blob for SET (skipped when the client already holds it).
   *
   * @returns Its id.
   */
  async put(data: Uint8Array): Promise<Uint8Array> {
    const id = await sha256(data);
    const hex = bytesToHex(id);
    if (!this.#known.has(hex)) {
      this.#known.add(hex);
      this.#queue.push({ id, data });
    }
    this.#cache?.put(hex, data);
    return id;
  }

  /** Marks a blob as held by the client (it came from the client). */
  markKnown(id: Uint8Array): void {
    this.#known.add(bytesToHex(id));
  }

  /**
   * Sends every queued SET without waiting for the results; the next {@link flush} waits
   * for them (a checkpoint only references blobs the client acknowledged).
   */
  async send(): Promise<void> {
    const batch = this.#queue.splice(0);
    for (const { id, data } of batch) {
      const { id: kvId, done } = this.#io.replies.kv("set");
      this.#io.record.kv.sets++;
      await this.#io.writer.send(create(AgentServerMessageSchema, {
        message: {
          case: "kvServerMessage",
          value: {
            id: kvId,
            message: { case: "setBlobArgs", value: { blobId: id, blobData: data } },
          },
        },
      }));
      const wait = done.then((reply) => {
        const result = reply.message;
        if (result.case === "setBlobResult" && result.value.error !== undefined) {
          throw new RunFailure({
            code: "internal",
            message: `Client failed to store blob ${
              bytesToHex(id).slice(0, 16)
            }: ${result.value.error.message}`,
          });
        }
      });
      wait.catch(() => {});
      this.#unacknowledged.push(wait);
    }
  }

  /** Sends every queued SET and waits for every result still outstanding. */
  async flush(): Promise<void> {
    await this.send();
    await Promise.all(this.#unacknowledged.splice(0));
  }

  /**
   * The blobs' data: from the server's cache or `pre_fetched_blobs`, else GET from the
   * client (all GETs in flight at once).
   *
   * @param ids Blob ids.
   * @returns Their data, in order.
   * @throws {RunFailure} `internal` "Blob not found" for a miss or a hash mismatch.
   */
  async get(ids: readonly Uint8Array[]): Promise<Uint8Array[]> {
    const out: Uint8Array[] = [];
    const pending: Promise<void>[] = [];
    ids.forEach((id, index) => {
      const cached = this.#cache?.get(bytesToHex(id));
      if (cached !== undefined) {
        this.#io.record.kv.cacheHits++;
        out[index] = cached;
      } else pending.push(this.#getOne(id).then((data) => void (out[index] = data)));
    });
    if (pending.length > 0) await Promise.all(pending);
    return out;
  }

  async #getOne(id: Uint8Array): Promise<Uint8Array> {
    const hex = bytesToHex(id);
    const pushed = this.#preFetched.get(hex);
    if (pushed !== undefined) {
      this.#io.record.kv.preFetched++;
      this.#known.add(hex);
      this.#cache?.put(hex, pushed);
      return pushed;
    }
    const { id: kvId, done } = this.#io.replies.kv("get");
    this.#io.record.kv.gets++;
    await this.#io.writer.send(create(AgentServerMessageSchema, {
      message: {
        case: "kvServerMessage",
        value: { id: kvId, message: { case: "getBlobArgs", value: { blobId: id } } },
      },
    }));
    const reply = await done;
    const result = reply.message;
    const data = result.case === "getBlobResult" ? result.value.blobData : undefined;
    if (result.case === "getBlobResult" && (data === undefined || data.length === 0)) {
      this.#io.record.kv.misses++;
      this.#io.variant("blobMissShape", result.value.error === undefined ? "empty" : "error");
      throw new RunFailure({ code: "internal", message: "Blob not found" });
    }
    if (data === undefined) throw new RunFailure({ code: "internal", message: "Blob not found" });
    if (bytesToHex(await sha256(data)) !== hex) {
      this.#io.violation(
        "blob-hash-mismatch",
        `Blob ${hex.slice(0, 16)} returned data with a different hash`,
      );
      throw new RunFailure({ code: "internal", message: "Blob not found" });
    }
    this.#known.add(hex);
    this.#cache?.put(hex, data);
    return data;
  }
}
