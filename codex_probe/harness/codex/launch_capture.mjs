// Loaded with `node --import` before a codex-cli npm launcher (node_modules/.bin/codex):
// instead of starting what the launcher starts, write down what it would start (the
// program, its arguments, the spawn's options with its environment) as JSON to the file
// CODEX_PROBE_LAUNCH_RECORD names, and exit 0. codex_probe/harness/codex/direct_launch.py
// reads it. Whatever the launcher calls to start the binary is recorded the same way.
import childProcess from "node:child_process";
import { writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const recordPath = process.env.CODEX_PROBE_LAUNCH_RECORD;

function record(name) {
  return (command, args, options) => {
    const argv = Array.isArray(args) ? args : [];
    const given = (Array.isArray(args) ? options : args) ?? {};
    const { env, ...rest } = given;
    writeFileSync(
      recordPath,
      JSON.stringify({
        call: name,
        command: String(command),
        args: argv.map(String),
        env: env ?? null,
        options: Object.keys(rest),
        stdio: rest.stdio ?? null,
      }),
    );
    process.exit(0);
  };
}

for (const name of ["spawn", "spawnSync", "execFile", "execFileSync", "exec", "execSync", "fork"]) {
  childProcess[name] = record(name);
}
// ES modules that import { spawn } from "node:child_process" see the replacements too.
syncBuiltinESMExports();
