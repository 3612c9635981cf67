/**
 * The owned-state rule: a state value's fields change only through its own module. The
 * classes that hold a conversation's and a turn's state expose nothing writable (every
 * field is `readonly` or `#private`, no setters), so the type checker refuses an
 * assignment from any other module; the state types a snapshot keeps are read-only.
 */
import ts from "typescript";

/** A state holder and the module that owns it. */
export interface OwnedState {
  readonly file: string;
  readonly name: string;
}

/** The state holders of the direct backend. */
export const OWNED_STATE: readonly OwnedState[] = [
  { file: "src/conversation/conversation.ts", name: "Conversation" },
  { file: "src/conversation/conversation-state.ts", name: "ConversationState" },
  { file: "src/conversation/conversation-state.ts", name: "TurnStart" },
  { file: "src/provider/direct/turn/active-turn.ts", name: "ActiveTurn" },
  { file: "src/provider/direct/turn-types.ts", name: "StartFacts" },
  { file: "src/conversation/checkpoint-eligibility.ts", name: "CheckpointEligibility" },
];

/**
 * The members of a state holder that another module could assign.
 *
 * @param file The module's path (for messages).
 * @param source The module's text.
 * @param name The class or interface.
 * @returns One message per writable member; `missing` when the declaration is not found.
 */
export function writableMembers(file: string, source: string, name: string): string[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const declaration = sourceFile.statements.find((statement) =>
    (ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement)) &&
    statement.name?.text === name
  ) as ts.ClassDeclaration | ts.InterfaceDeclaration | undefined;
  if (declaration === undefined) return [`${file}: ${name} is missing`];
  const found: string[] = [];
  for (const member of declaration.members) {
    const label = `${file}: ${name}.${member.name?.getText(sourceFile) ?? "?"}`;
    if (ts.isSetAccessorDeclaration(member)) found.push(`${label} has a setter`);
    if (!ts.isPropertyDeclaration(member) && !ts.isPropertySignature(member)) continue;
    if (ts.isPrivateIdentifier(member.name)) continue;
    const readonly = ts.getCombinedModifierFlags(member as ts.Declaration) &
      ts.ModifierFlags.Readonly;
    if (!readonly) found.push(`${label} is writable from other modules`);
  }
  return found;
}

/**
 * Type-checks a module against the real source tree and returns its diagnostics' codes
 * and messages: the proof that an outside assignment to owned state is refused.
 *
 * @param root The repository root (absolute).
 * @param file The sample's path under the root.
 * @param source The sample's text.
 * @returns The diagnostics of the sample itself.
 */
export function compileSample(root: string, file: string, source: string): string[] {
  const path = `${root}/${file}`;
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    types: [],
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (name) => name === path ? source : read(name);
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === path || exists(name);
  const program = ts.createProgram([path], options, host);
  const sample = program.getSourceFile(path);
  return ts.getPreEmitDiagnostics(program, sample).map((d) =>
    `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`
  );
}
