#!/usr/bin/env node
/**
 * The `wga` command. Each command lives in ./commands; this file wires them
 * up and turns every error into one line on stderr and a non-zero exit:
 * 1 bad input data, 2 bad usage, 3 not converged (see errors.ts).
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ExitCode, WgaError } from '../errors.js';
import { registerAggregate } from './commands/aggregate.js';
import { registerChanges } from './commands/changes.js';
import { registerCompare } from './commands/compare.js';
import { registerCrawl } from './commands/crawl.js';
import { registerDegrees } from './commands/degrees.js';
import { registerDistances } from './commands/distances.js';
import { registerDemo } from './commands/demo.js';
import { registerExperiment } from './commands/experiment.js';
import { registerExport } from './commands/export.js';
import { registerLevels } from './commands/levels.js';
import { registerRank } from './commands/rank.js';
import { registerScc } from './commands/scc.js';
import { registerServe } from './commands/serve.js';
import { registerStats } from './commands/stats.js';
import { registerCompact } from './commands/compact.js';
import { registerStoreCommands } from './commands/store.js';
import { registerAudit } from './commands/audit.js';

function version(): string {
  const packageJson = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
}

export function buildProgram(): Command {
  const program = new Command('wga')
    .description('web graph analyzer: load web graphs and compute their link-analysis characteristics')
    .version(version())
    .exitOverride()
    .configureOutput({
      outputError: (text, write) => write(`wga: ${text.replace(/^error: /, '').trimEnd()} (see --help)\n`),
    });
  registerDemo(program);
  registerStats(program);
  registerCompact(program);
  registerRank(program);
  registerScc(program);
  registerLevels(program);
  registerDegrees(program);
  registerDistances(program);
  registerCompare(program);
  registerAggregate(program);
  registerExperiment(program);
  registerExport(program);
  registerStoreCommands(program);
  registerAudit(program);
  registerCrawl(program);
  registerChanges(program);
  registerServe(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are "errors" to commander; everything else it reports
      // (including a missing command, answered with the help) is bad usage.
      // `wga help` and `wga help CMD` are commander's help too (a code of their own, exit code 0).
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || (error.code === 'commander.help' && error.exitCode === 0)) return 0;
      return ExitCode.usage;
    }
    if (error instanceof WgaError) {
      process.stderr.write(`wga: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`wga: internal error: ${(error as Error).stack ?? String(error)}\n`);
    return 70;
  }
}

// Output cut short by its reader (`wga top ... | head`) is not an error of ours: stop quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main(process.argv);
