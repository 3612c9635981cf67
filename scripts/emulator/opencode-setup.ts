/**
 * The ready-to-paste OpenCode set-up `npm run emulator` prints for itself: an
 * `opencode.json` with this checkout's built plugin and provider (`file://` URLs), the
 * provider options that allow the loopback emulator, and the environment the plugin
 * needs to list models and sign in against it. The same set-up the end-to-end suite
 * uses (test/e2e/support).
 *
 * @module
 */

/** Where things are. */
export interface OpenCodeSetupInputs {
  /** The emulator's main URL. */
  readonly url: string;
  /** Absolute path of this checkout. */
  readonly checkout: string;
  /** Whether `npm/` has been built. */
  readonly built: boolean;
}

/**
 * The opencode.json for OpenCode against the emulator.
 *
 * @param inputs URL and checkout.
 * @returns The config object.
 */
export function emulatorOpenCodeConfig(inputs: OpenCodeSetupInputs): Record<string, unknown> {
  const npm = `file://${inputs.checkout}/npm`;
  return {
    $schema: "https://opencode.ai/config.json",
    plugin: [`${npm}/plugin/mod.js`],
    provider: {
      cursor: {
        npm: `${npm}/node.js`,
        name: "Cursor",
        options: { apiBaseURL: inputs.url, allowLoopback: true },
        models: {},
      },
    },
  };
}

/**
 * The set-up as lines to print.
 *
 * @param inputs URL, checkout and whether `npm/` exists.
 * @returns Lines.
 */
export function openCodeSetupLines(inputs: OpenCodeSetupInputs): string[] {
  const config = JSON.stringify(emulatorOpenCodeConfig(inputs), null, 2);
  return [
    "",
    'OpenCode against this emulator (details: docs/opencode.md, "OpenCode against the emulator"):',
    ...(inputs.built
      ? []
      : ["  0. npm run build   (npm/ is missing; OpenCode loads the built files)"]),
    "  1. Put this in opencode.json of a scratch project:",
    ...config.split("\n").map((line) => `     ${line}`),
    "  2. In that project's shell:",
    `     export CURSOR_API_BASE_URL=${inputs.url} CURSOR_WEBSITE_URL=${inputs.url}`,
    '  3. opencode auth login   → "cursor" → "Cursor API key" → any key like crsr_emulator_key_1',
    '  4. opencode run --model cursor/claude-4.5-sonnet "Hello"',
    "",
  ];
}
