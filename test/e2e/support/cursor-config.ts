/**
 * The OpenCode configuration the suite uses: the README's set-up (the built plugin and
 * provider as `file://` URLs), pointed at the emulator.
 *
 * @module
 */
import type { BuiltPackage } from "./package-build.ts";

/**
 * The project opencode.json for chats against the emulator.
 *
 * @param built The built package's entries.
 * @param emulatorUrl The emulator's URL.
 * @returns The config object.
 */
export function chatConfig(built: BuiltPackage, emulatorUrl: string): Record<string, unknown> {
  return {
    $schema: "https://opencode.ai/config.json",
    plugin: [built.plugin],
    provider: {
      cursor: {
        npm: built.provider,
        name: "Cursor",
        // Only for the emulator: a real set-up needs no options.
        options: { apiBaseURL: emulatorUrl, allowLoopback: true },
        models: {},
      },
    },
    // `opencode serve` has nobody to answer permission questions.
    permission: { edit: "allow", bash: "allow", webfetch: "deny" },
  };
}
