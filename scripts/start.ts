/**
 * The main job: one chat turn through the provider. Not built yet; says so plainly.
 *
 * @module
 */
console.error(
  "The Cursor provider is not built yet, so there is no chat turn to run. See README.md for status.",
);
Deno.exit(1);
