/**
 * How provider errors tell an OpenCode user to sign in (the provider's own advice names
 * the settings of a plain AI SDK app; OpenCode users sign in through OpenCode).
 *
 * @module
 */

/** The sign-in advice every provider the plugin sets up carries. */
export const OPENCODE_SIGN_IN_ADVICE =
  "Sign in to Cursor again: run `opencode auth login` and choose Cursor, or set a valid CURSOR_API_KEY";
