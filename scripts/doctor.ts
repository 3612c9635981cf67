/**
 * `npm run doctor` / `deno run -A scripts/doctor.ts`: the doctor from a checkout
 * (the npm package runs the same command as `npx ai-sdk-provider-cursor doctor`).
 * `--help` lists the options.
 *
 * @module
 */
import { runDoctorCli } from "../src/adapters/node/commands/doctor-cli.ts";

Deno.exit(await runDoctorCli(Deno.args));
