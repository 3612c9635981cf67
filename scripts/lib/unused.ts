/**
 * Finds exports nothing imports and dependencies nothing imports, with the TypeScript
 * parser (syntax only: fast, no type check).
 *
 * - An export of an entry module (deno.json `exports`) is public.
 * - An export of any other module is unused when no other file (product, test or script)
 *   imports it. Named imports, re-exports, namespace imports, dynamic imports and
 *   `export *` all count as uses; so does being named in the declaration of a used export
 *   of the same module (a public signature's types must stay exported).
 * - A package in package.json `dependencies` is unused when no product file imports it.
 *
 * Pure: the caller passes file texts in, so tests can feed it a fake tree.
 *
 * @module
 */
import ts from "typescript";

/** What to analyse. */
export interface UnusedInput {
  /** Repository-relative path → source text of every product file (checked and importing). */
  readonly files: ReadonlyMap<string, string>;
  /** Files that only import (tests, scripts): their uses count, their exports are not checked. */
  readonly importers?: ReadonlyMap<string, string>;
  /** Repository-relative entry modules (their exports are public). */
  readonly entries: readonly string[];
  /** package.json `dependencies` names. */
  readonly dependencies: readonly string[];
}

/** What nothing uses. */
export interface UnusedReport {
  /** `path#name` of exports no other product file imports, sorted. */
  readonly exports: readonly string[];
  /** Runtime dependencies no product file imports, sorted. */
  readonly dependencies: readonly string[];
}

interface ModuleFacts {
  /** Names this module exports (`default` included). */
  readonly exported: Set<string>;
  /** Per exported name: the identifiers its declaration mentions. */
  readonly mentions: Map<string, Set<string>>;
  /** Per imported module path: names used, or "*" for all of them. */
  readonly uses: Map<string, Set<string>>;
  /** Bare package specifiers imported. */
  readonly packages: Set<string>;
}

/**
 * Finds unused exports and dependencies.
 *
 * @param input The product files, the entries and the declared dependencies.
 * @returns The findings.
 */
export function findUnused(input: UnusedInput): UnusedReport {
  const facts = new Map<string, ModuleFacts>();
  for (const [path, text] of input.files) facts.set(path, moduleFacts(path, text));
  const used = new Map<string, Set<string>>();
  const packages = new Set<string>();
  const record = (fact: ModuleFacts) => {
    for (const [target, names] of fact.uses) {
      const set = used.get(target) ?? new Set<string>();
      for (const name of names) set.add(name);
      used.set(target, set);
    }
  };
  for (const fact of facts.values()) {
    record(fact);
    for (const name of fact.packages) packages.add(name);
  }
  for (const [path, text] of input.importers ?? new Map()) record(moduleFacts(path, text));
  // `export *` of a used module passes its uses on (entries re-export whole modules).
  const exports: string[] = [];
  const entries = new Set(input.entries.map((entry) => entry.replace(/^\.\//, "")));
  for (const [path, fact] of facts) {
    if (entries.has(path)) continue;
    const names = used.get(path) ?? new Set<string>();
    if (names.has("*")) continue;
    // A used export keeps the exports its declaration names (to a fixpoint).
    const pending = [...names];
    while (pending.length > 0) {
      for (const mentioned of fact.mentions.get(pending.pop() ?? "") ?? []) {
        if (fact.exported.has(mentioned) && !names.has(mentioned)) {
          names.add(mentioned);
          pending.push(mentioned);
        }
      }
    }
    for (const name of fact.exported) {
      if (!names.has(name)) exports.push(`${path}#${name}`);
    }
  }
  const dependencies = input.dependencies.filter((name) => !packages.has(name));
  return { exports: exports.sort(), dependencies: [...dependencies].sort() };
}

function moduleFacts(path: string, text: string): ModuleFacts {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const facts: ModuleFacts = {
    exported: new Set(),
    mentions: new Map(),
    uses: new Map(),
    packages: new Set(),
  };
  const use = (specifier: string, names: Iterable<string>) => {
    if (specifier.startsWith(".")) {
      const target = resolve(path, specifier);
      const set = facts.uses.get(target) ?? new Set<string>();
      for (const name of names) set.add(name);
      facts.uses.set(target, set);
    } else if (!/^(node|npm|jsr|bun|deno):/.test(specifier)) {
      facts.packages.add(packageName(specifier));
    }
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      use(statement.moduleSpecifier.text, importedNames(statement.importClause));
    } else if (ts.isExportDeclaration(statement)) {
      exportDeclaration(statement, facts, use);
    } else if (ts.isExportAssignment(statement)) {
      facts.exported.add("default");
    } else if (hasExportModifier(statement)) {
      const mentioned = identifiersIn(statement);
      for (const name of declaredNames(statement)) {
        facts.exported.add(name);
        facts.mentions.set(name, mentioned);
      }
    }
  }
  // Dynamic `import("./x.ts")` and `typeof import("./x.ts")` anywhere: every name.
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] && ts.isStringLiteral(node.arguments[0])
    ) {
      use(node.arguments[0].text, ["*"]);
    } else if (
      ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      use(node.argument.literal.text, ["*"]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return facts;
}

function exportDeclaration(
  statement: ts.ExportDeclaration,
  facts: ModuleFacts,
  use: (specifier: string, names: Iterable<string>) => void,
): void {
  const from = statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
    ? statement.moduleSpecifier.text
    : undefined;
  const clause = statement.exportClause;
  if (clause === undefined) {
    // `export * from "./x.ts"`: everything of x is re-exported (and so reachable).
    if (from !== undefined) use(from, ["*"]);
    return;
  }
  if (ts.isNamespaceExport(clause)) {
    facts.exported.add(clause.name.text);
    if (from !== undefined) use(from, ["*"]);
    return;
  }
  for (const element of clause.elements) {
    facts.exported.add(element.name.text);
    if (from !== undefined) use(from, [(element.propertyName ?? element.name).text]);
  }
}

function identifiersIn(node: ts.Node): Set<string> {
  const names = new Set<string>();
  const visit = (child: ts.Node) => {
    if (ts.isIdentifier(child)) names.add(child.text);
    ts.forEachChild(child, visit);
  };
  visit(node);
  return names;
}

function importedNames(clause: ts.ImportClause | undefined): string[] {
  if (clause === undefined) return [];
  const names: string[] = [];
  if (clause.name) names.push("default");
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) names.push("*");
  if (bindings && ts.isNamedImports(bindings)) {
    for (const element of bindings.elements) {
      names.push((element.propertyName ?? element.name).text);
    }
  }
  return names;
}

function hasExportModifier(statement: ts.Statement): boolean {
  return ts.canHaveModifiers(statement) &&
    (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

function declaredNames(statement: ts.Statement): string[] {
  const isDefault = ts.canHaveModifiers(statement) &&
    (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
  if (isDefault) return ["default"];
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.flatMap((d) =>
      ts.isIdentifier(d.name) ? [d.name.text] : []
    );
  }
  if (
    (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) ||
      ts.isEnumDeclaration(statement) || ts.isModuleDeclaration(statement)) &&
    statement.name && ts.isIdentifier(statement.name)
  ) {
    return [statement.name.text];
  }
  return [];
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0] ?? specifier;
}

function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}
