/**
 * What a Run has done so far, counted as its messages are dispatched: the counts the
 * debug log reports, whether output reached the host (after which a replay is unsafe),
 * and the display tool calls that failed.
 *
 * @module
 */

/** What a Run has done so far, counted as its messages are dispatched (for diagnostics). */
export interface RunActivity {
  checkpointUpdates: number;
  tokenDetailUpdates: number;
  stepsStarted: number;
  stepsCompleted: number;
  displayToolCalls: number;
  execRequests: number;
  kvGets: number;
  kvSets: number;
  /** Visible output (text, thinking, tool activity) reached the host: replay is unsafe. */
  visibleOutput: boolean;
  /** A CreatePlan / SwitchMode call or query came in this Run. */
  createPlanInRun: boolean;
  switchModeInRun: boolean;
  /** Completed display tool calls whose result is an error, not yet logged. */
  displayFailures: DisplayFailure[];
}

/**
 * A Run's activity before its first message.
 *
 * @returns Zero counts.
 */
export function createRunActivity(): RunActivity {
  return {
    checkpointUpdates: 0,
    tokenDetailUpdates: 0,
    stepsStarted: 0,
    stepsCompleted: 0,
    displayToolCalls: 0,
    execRequests: 0,
    kvGets: 0,
    kvSets: 0,
    visibleOutput: false,
    createPlanInRun: false,
    switchModeInRun: false,
    displayFailures: [],
  };
}

/** The error result of a completed display tool call. */
export interface DisplayFailure {
  readonly callId: string;
  /** The ToolCall variant (`mcpToolCall`, `readToolCall`, …). */
  readonly tool: string;
  /** The result's error text (for MCP calls, Cursor's error title and detail). */
  readonly error: string;
  /** For MCP calls: the tool name the model chose, its namespace and bare name (may be empty). */
  readonly mcp?: {
    readonly name: string;
    readonly providerIdentifier: string;
    readonly toolName: string;
  };
}
