#!/usr/bin/env node
/**
 * The npm package's executable (`bin`): `npx ai-sdk-provider-cursor doctor [--json]`.
 * Importing this module runs the command with the process's arguments and sets the
 * exit status.
 *
 * @module
 */
import process from "node:process";
import { runPackageBin } from "./doctor-cli.ts";

process.exitCode = await runPackageBin(process.argv.slice(2));
