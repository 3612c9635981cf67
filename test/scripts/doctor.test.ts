import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  type CursorEmulator,
  installFakeCursorAgent,
  startCursorEmulator,
} from "../../src/testing/mod.ts";
import { createNodeDoctorProbes } from "../../src/adapters/node/commands/doctor-probes.ts";
import { runDoctorCli } from "../../src/adapters/node/commands/doctor-cli.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import type { CheckResult, DoctorProbes, DoctorReport } from "../../src/doctor/doctor-types.ts";
import { serializeCatalogCache } from "../../src/catalog/model-cache.ts";
import { stripJsonComments } from "../../src/doctor/opencode-config.ts";

/** A scratch machine: HOME and XDG folders, a built checkout, OpenCode's files, a fake cursor-agent. */
interface Machine {
  readonly root: string;
  readonly env: Record<string, string>;
  readonly project: string;
  readonly checkout: string;
  readonly files: { config: string; auth: string; modelCache: string };
  readonly agentBin: string;
}

async function createMachine(emulator: CursorEmulator): Promise<Machine> {
  const root = await mkdtemp(join(tmpdir(), "cursor-doctor-"));
  const checkout = join(root, "ai-sdk-provider-cursor");
  await mkdir(join(checkout, "npm", "plugin"), { recursive: true });
  await writeFile(join(checkout, "npm", "plugin", "mod.js"), "export {};\n");
  await writeFile(join(checkout, "npm", "node.js"), "export {};\n");
  await writeFile(join(checkout, "npm", "package.json"), '{ "version": "0.1.0" }\n');
  const project = join(root, "project");
  const files = {
    config: join(root, "config", "opencode", "opencode.json"),
    auth: join(root, "data", "opencode", "auth.json"),
    modelCache: join(root, "cache", "opencode", "cursor-models.json"),
  };
  for (
    const dir of [
      project,
      join(root, "home"),
      ...Object.values(files).map((f) => join(f, "..")),
    ]
  ) {
    await mkdir(dir, { recursive: true });
  }
  const fake = await installFakeCursorAgent(join(root, "bin"));
  const machine: Machine = {
    root,
    project,
    checkout,
    files,
    agentBin: fake.directory,
    env: {
      HOME: join(root, "home"),
      XDG_CONFIG_HOME: join(root, "config"),
      XDG_DATA_HOME: join(root, "data"),
      XDG_CACHE_HOME: join(root, "cache"),
      PATH: `${fake.directory}:${process.env.PATH ?? ""}`,
      FAKE_CURSOR_AGENT_STATE_DIR: join(root, "fake-state"),
    },
  };
  await writeConfig(machine, emulator.url, { allowLoopback: true });
  await writeFile(
    files.auth,
    JSON.stringify({ cursor: { type: "api", key: "crsr_doctor_test_key" } }),
  );
  const models = [{
    id: "gpt-5",
    displayName: "GPT-5",
    thinking: true,
    images: true,
    tools: true,
    variants: [],
  }];
  await writeFile(files.modelCache, serializeCatalogCache({ fetchedAt: Date.now(), models }));
  return machine;
}

async function writeConfig(
  machine: Machine,
  url: string,
  options: { allowLoopback?: boolean; plugin?: string },
): Promise<void> {
  const config = {
    $schema: "https://opencode.ai/config.json",
    // A comment-free config; OpenCode also accepts comments (tested below).
    plugin: [options.plugin ?? `file://${machine.checkout}/npm/plugin/mod.js`],
    provider: {
      cursor: {
        npm: `file://${machine.checkout}/npm/node.js`,
        name: "Cursor",
        options: {
          apiBaseURL: url,
          ...(options.allowLoopback === undefined ? {} : { allowLoopback: options.allowLoopback }),
        },
        models: {},
      },
    },
  };
  await writeFile(machine.files.config, JSON.stringify(config, null, 2));
}

function probesFor(machine: Machine, overrides: Partial<DoctorProbes> = {}): DoctorProbes {
  return { ...createNodeDoctorProbes({ env: machine.env, cwd: machine.project }), ...overrides };
}

function find(report: DoctorReport, id: string): CheckResult {
  const found = report.checks.find((check) => check.id === id);
  assert.ok(found, `no check ${id} in ${JSON.stringify(report.checks.map((c) => c.id))}`);
  return found;
}

function failures(report: DoctorReport): string[] {
  return report.checks.filter((c) => c.status === "fail").map((c) => `${c.id}: ${c.detail}`);
}

describe("doctor against the emulator", () => {
  let emulator: CursorEmulator;
  const machines: Machine[] = [];
  const machine = async () => {
    const created = await createMachine(emulator);
    machines.push(created);
    return created;
  };

  before(async () => {
    emulator = await startCursorEmulator();
  });
  after(async () => {
    for (const created of machines) await rm(created.root, { recursive: true, force: true });
    await emulator.close();
  });

  it("passes a healthy set-up: live exchange, agent host, models, config, cursor-agent login", async () => {
    const report = await runDoctor(probesFor(await machine()));
    assert.deepEqual(failures(report), []);
    assert.equal(report.ok, true);
    for (
      const id of [
        "credentials.present",
        "credentials.live",
        "hosts.loopback",
        "hosts.agent-allow-list",
        "models.live",
        "models.cache",
        "opencode.plugin",
        "opencode.provider",
        "cursor-agent.installed",
        "cursor-agent.login",
      ]
    ) {
      assert.equal(find(report, id).status, "ok", `${id}: ${find(report, id).detail}`);
    }
    assert.match(find(report, "models.live").detail, /gpt-5/);
  });

  it("skips the OpenCode checks and advice when there is no OpenCode set-up", async () => {
    const setup = await machine();
    await rm(setup.files.config);
    await rm(setup.files.auth);
    const plain = {
      ...setup.env,
      CURSOR_API_KEY: "crsr_doctor_test_key",
      CURSOR_API_BASE_URL: emulator.url,
      CURSOR_ALLOW_LOOPBACK: "1",
    };
    const report = await runDoctor(probesFor({ ...setup, env: plain }));
    assert.equal(find(report, "opencode.setup").status, "skip");
    const ids = report.checks.map((check) => check.id);
    assert.ok(!ids.some((id) => id.startsWith("opencode.") && id !== "opencode.setup"), ids.join());
    assert.ok(!ids.includes("models.cache"), ids.join());
    assert.equal(find(report, "credentials.live").status, "ok");
    assert.deepEqual(failures(report), []);
    const { CURSOR_API_KEY: _key, ...keyless } = plain;
    const missing = await runDoctor(probesFor({ ...setup, env: keyless }));
    const check = find(missing, "credentials.present");
    assert.equal(check.status, "fail");
    assert.match(
      check.fix ?? "",
      /^export CURSOR_API_KEY=crsr_… .*\(or pass apiKey to createCursor\(\)\)$/,
    );
    assert.doesNotMatch(JSON.stringify(missing), /opencode auth/i);
  });

  it("names missing credentials with the command that fixes them", async () => {
    const setup = await machine();
    await rm(setup.files.auth);
    const report = await runDoctor(probesFor(setup));
    const check = find(report, "credentials.present");
    assert.equal(check.status, "fail");
    assert.match(check.fix ?? "", /opencode auth login/);
    assert.equal(find(report, "hosts.agent-allow-list").status, "skip");
    assert.equal(report.ok, false);
  });

  it("names an expired login and never prints the token", async () => {
    const setup = await machine();
    const { accessToken } = await emulator.auth.issueTokens();
    await writeFile(
      setup.files.auth,
      JSON.stringify({ cursor: { type: "oauth", access: accessToken, refresh: "", expires: 0 } }),
    );
    const later = Date.now() + 10 * 24 * 3600 * 1000;
    const report = await runDoctor(probesFor(setup, { now: () => later }));
    const check = find(report, "credentials.expiry");
    assert.equal(check.status, "fail");
    assert.match(check.detail, /expired at/);
    assert.match(check.fix ?? "", /opencode auth login/);
    assert.ok(!JSON.stringify(report).includes(accessToken), "the token leaked into the report");
  });

  it("names a rejected API key without printing it", async () => {
    const setup = await machine();
    await writeFile(
      setup.files.auth,
      JSON.stringify({ cursor: { type: "api", key: "not-a-cursor-key" } }),
    );
    const report = await runDoctor(probesFor(setup));
    const check = find(report, "credentials.decodable");
    assert.equal(check.status, "fail");
    assert.match(check.fix ?? "", /cursor\.com\/settings/);
    assert.ok(!JSON.stringify(report).includes("not-a-cursor-key"));
  });

  it("names a corrupt model cache with the command that clears it", async () => {
    const setup = await machine();
    await writeFile(setup.files.modelCache, "{ not json");
    const check = find(await runDoctor(probesFor(setup)), "models.cache");
    assert.equal(check.status, "fail");
    assert.equal(
      check.fix,
      `rm ${setup.files.modelCache} (the plugin fetches a fresh list at its next start)`,
    );
  });

  it("names a plugin file:// path that does not exist", async () => {
    const setup = await machine();
    await writeConfig(setup, emulator.url, {
      allowLoopback: true,
      plugin: `file://${setup.checkout}/dist/plugin/mod.js`,
    });
    const report = await runDoctor(probesFor(setup));
    const check = report.checks.find((c) => c.id === "opencode.plugin" && c.status === "fail");
    assert.ok(check, JSON.stringify(report.checks));
    assert.match(check.detail, /dist\/plugin\/mod\.js/);
    assert.match(check.fix ?? "", /npm run build/);
  });

  it("names a missing cursor-agent with the install command", async () => {
    const setup = await machine();
    const report = await runDoctor(
      probesFor({ ...setup, env: { ...setup.env, PATH: join(setup.root, "empty") } }),
    );
    const check = find(report, "cursor-agent.installed");
    assert.equal(check.status, "warn");
    assert.match(check.fix ?? "", /cursor\.com\/install/);
  });

  it("names a loopback API URL without the allowance", async () => {
    const setup = await machine();
    await writeConfig(setup, emulator.url, {});
    const report = await runDoctor(probesFor(setup));
    const check = find(report, "hosts.loopback");
    assert.equal(check.status, "fail");
    assert.match(check.fix ?? "", /"allowLoopback": true/);
    assert.match(check.fix ?? "", new RegExp(setup.files.config.replaceAll("/", "\\/")));
  });

  it("--json prints a report that parses; the exit status follows it", async () => {
    const setup = await machine();
    let out = "";
    const io = { stdout: (text: string) => void (out += text), stderr: () => {} };
    const code = await runDoctorCli(["--json"], { env: setup.env, cwd: setup.project }, io);
    const parsed = JSON.parse(out) as DoctorReport;
    assert.equal(code, 0);
    assert.equal(parsed.ok, true);
    assert.ok(parsed.checks.every((c) => typeof c.id === "string" && typeof c.detail === "string"));
    await rm(setup.files.auth);
    out = "";
    assert.equal(await runDoctorCli([], { env: setup.env, cwd: setup.project }, io), 1);
    assert.match(out, /FAIL {2}Credentials: No Cursor credentials found/);
    assert.match(out, /\n {6}fix: opencode auth login/);
  });

  it("answers an unknown option with one line that points to --help", async () => {
    let err = "";
    const io = { stdout: () => {}, stderr: (text: string) => void (err += text) };
    assert.equal(await runDoctorCli(["--jsn"], {}, io), 2);
    assert.equal(
      err,
      'Unknown option --jsn: run "npx ai-sdk-provider-cursor doctor --help" for the options\n',
    );
  });
});

describe("OpenCode config reading", () => {
  it("accepts comments and trailing commas, and leaves strings alone", () => {
    const text = '{\n  // a comment\n  "plugin": ["file:///a//b", /* x */ "y",],\n}';
    assert.deepEqual(JSON.parse(stripJsonComments(text)), { plugin: ["file:///a//b", "y"] });
  });
});
