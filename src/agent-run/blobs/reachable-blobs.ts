/**
 * The walk that finds the blobs a checkpoint can still reach: what a snapshot carries
 * and what a warm turn may push up front, and nothing else.
 *
 * @module
 */
import { bytesToHex } from "../../core/bytes.ts";
import type { BlobStore } from "./blob-store.ts";

/** Deepest nesting the reference walk follows inside one blob. */
const MAX_NESTING = 8;

/**
 * The blobs a checkpoint can still reach: every 32-byte length-delimited field of the
 * checkpoint (and, transitively, of the blobs it reaches, nested messages included)
 * that names a blob the store holds. Unreferenced blobs are left out.
 *
 * @param checkpoint The checkpoint bytes.
 * @param blobs The store the ids are looked up in.
 * @returns The reachable blobs by hex id, in discovery order.
 */
export function reachableBlobs(
  checkpoint: Uint8Array,
  blobs: BlobStore,
): Map<string, Uint8Array> {
  const found = new Map<string, Uint8Array>();
  const pending: Uint8Array[] = [checkpoint];
  while (pending.length > 0) {
    const data = pending.pop();
    if (data === undefined) break;
    for (const id of candidateIds(data, 0)) {
      const hex = bytesToHex(id);
      if (found.has(hex)) continue;
      const blob = blobs.get(hex);
      if (blob === undefined) continue;
      found.set(hex, blob);
      pending.push(blob);
    }
  }
  return found;
}

/** 32-byte length-delimited fields of a protobuf message, nested messages included. */
function candidateIds(data: Uint8Array, depth: number): Uint8Array[] {
  const fields = lengthDelimitedFields(data);
  if (fields === undefined) return [];
  const out: Uint8Array[] = [];
  for (const field of fields) {
    if (field.length === 32) out.push(field);
    else if (depth < MAX_NESTING && field.length > 0) out.push(...candidateIds(field, depth + 1));
  }
  return out;
}

/** The length-delimited fields of `data` read as a protobuf message, or `undefined` if it is not one. */
function lengthDelimitedFields(data: Uint8Array): Uint8Array[] | undefined {
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < data.length) {
    const tag = readVarint(data, at);
    if (tag === undefined || tag.value === 0) return undefined;
    at = tag.next;
    const wireType = tag.value % 8;
    if (wireType === 0) {
      const value = readVarint(data, at);
      if (value === undefined) return undefined;
      at = value.next;
    } else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const length = readVarint(data, at);
      if (length === undefined || length.next + length.value > data.length) return undefined;
      out.push(data.subarray(length.next, length.next + length.value));
      at = length.next + length.value;
    } else return undefined;
  }
  return at === data.length ? out : undefined;
}

function readVarint(data: Uint8Array, at: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = at; i < data.length && i < at + 10; i++) {
    const byte = data[i] ?? 0;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if ((byte & 0x80) === 0) return { value, next: i + 1 };
  }
  return undefined;
}
