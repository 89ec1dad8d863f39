import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { LoadResult } from './load.js';

export interface Target {
  description: string;
  pass: boolean;
}

/** Where the machine's CPU went during a phase, in cores (0..cores). */
export interface CoresUsed {
  machineBusy: number;
  /** Taken by the hypervisor for other virtual machines (steal time): noise we cannot see. */
  stolen: number;
  /** Per group of processes (see `classifyProcesses` in offers.bench.ts). */
  groups: Record<string, number>;
}

export interface ScenarioFigures {
  scenario: string;
  load: LoadResult;
  cpu?: CoresUsed;
  /** Unset for scenarios measured only for comparison (the baseline). */
  target?: Target;
}

export interface RatioFigures {
  name: string;
  ours: number;
  bare: number;
  ratio: number;
  /** Each round's ratio, when offers-api and the baseline were measured in turns; `ratio` is their median. */
  rounds?: number[];
  minimum: number;
  pass: boolean;
}

export interface CheckFigures {
  name: string;
  detail: string;
  pass: boolean;
}

export interface MachineInfo {
  cores: number;
  cpu: string;
  memoryGiB: number;
  os: string;
  node: string;
  postgres: string;
  nats: string;
}

export interface BenchReport {
  benchmark: string;
  startedAt: string;
  command: string;
  machine: MachineInfo;
  settings: Record<string, number>;
  scenarios: ScenarioFigures[];
  ratios: RatioFigures[];
  checks: CheckFigures[];
}

export function machineInfo(postgres: string, nats: string): MachineInfo {
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${process.platform} ${release()}`,
    node: process.version,
    postgres,
    nats,
  };
}

/** A run with non-2xx answers or socket errors measured something else than the target: never a pass. */
export function clean(load: LoadResult): boolean {
  return load.non2xx === 0 && load.errors === 0;
}

export function formatReport(report: BenchReport): string {
  const m = report.machine;
  const lines = [
    '',
    `Benchmark: ${report.benchmark}   started ${report.startedAt}   (${report.command})`,
    `Machine:   ${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, ${m.os}; node ${m.node}; PostgreSQL ${m.postgres}; NATS ${m.nats}`,
    `Settings:  ${Object.entries(report.settings)
      .map(([key, value]) => `${key}=${value}`)
      .join(' ')}`,
    '',
    ...section(
      report.scenarios.length > 0,
      table(
        ['Scenario', 'conns', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'non-2xx', 'errors', 'target', 'result'],
        report.scenarios.map(({ scenario, load, target }) => [
          scenario,
          load.overallRate ? `${load.connections}@${load.overallRate}/s` : String(load.connections),
          load.requestsPerSecond.toFixed(0),
          String(load.latencyMs.p50),
          String(load.latencyMs.p90),
          String(load.latencyMs.p99),
          String(load.latencyMs.max),
          String(load.non2xx),
          String(load.errors),
          target?.description ?? '(reference)',
          verdict(load, target),
        ]),
      ),
    ),
    ...section(report.scenarios.some((s) => s.cpu), cpuTable(report.scenarios)),
    ...section(
      report.ratios.length > 0,
      table(
        ['Ratio offers-api / bare', 'offers-api req/s', 'bare req/s', 'ratio', 'rounds', 'minimum', 'result'],
        report.ratios.map((r) => [
          r.name,
          r.ours.toFixed(0),
          r.bare.toFixed(0),
          r.ratio.toFixed(2),
          r.rounds?.map((value) => value.toFixed(2)).join(' ') ?? '',
          r.minimum.toFixed(2),
          r.pass ? 'PASS' : 'FAIL',
        ]),
      ),
    ),
    table(
      ['Check', 'detail', 'result'],
      report.checks.map((c) => [c.name, c.detail, c.pass ? 'PASS' : 'FAIL']),
    ),
  ];
  const dirty = report.scenarios.filter((s) => !clean(s.load));
  if (dirty.length > 0) {
    lines.push('', '!!! ERRORS DURING THE LOAD — these figures do not measure successful requests:');
    for (const s of dirty) lines.push(`!!!   ${s.scenario}: status codes ${JSON.stringify(s.load.statusCodes)}, socket errors/timeouts ${s.load.errors}`);
  }
  for (const { scenario, cpu } of report.scenarios) {
    const other = cpu?.groups.other ?? 0;
    if (other > BUSY_ELSEWHERE) lines.push(`!!! ${scenario}: processes outside the benchmark used ${percent(other)} of a core; the machine was not quiet`);
    if ((cpu?.stolen ?? 0) > BUSY_ELSEWHERE) lines.push(`!!! ${scenario}: the hypervisor took ${percent(cpu?.stolen ?? 0)} of a core (steal); figures understate this machine`);
  }
  const failed = [...report.scenarios.filter((s) => s.target && verdict(s.load, s.target) !== 'PASS'), ...report.ratios.filter((r) => !r.pass), ...report.checks.filter((c) => !c.pass)];
  lines.push('', failed.length === 0 ? 'All targets met.' : `FAIL: ${failed.length} target(s) or check(s) not met (see above).`, '');
  return lines.join('\n');
}

/** A table followed by a blank line, or nothing when the benchmark has no such figures. */
function section(present: boolean, text: string): string[] {
  return present ? [text, ''] : [];
}

/** More than this many cores used by other processes makes a phase's figures suspect. */
const BUSY_ELSEWHERE = 0.1;
const CPU_GROUPS = ['server', 'contact-directory', 'postgres', 'nats', 'load generator', 'kernel', 'other'];

/** CPU milliseconds each group spent per request: what the server costs, and what the machine had left. */
function cpuTable(scenarios: ScenarioFigures[]): string {
  const rows = scenarios
    .filter((s) => s.cpu)
    .map(({ scenario, load, cpu }) => {
      const { 'offers-api': ours = 0, 'bare server': bare = 0, ...rest } = (cpu as CoresUsed).groups;
      const groups: Record<string, number> = { ...rest, server: ours + bare };
      const perRequest = (cores: number) => (load.requestsPerSecond > 0 ? ((cores * 1000) / load.requestsPerSecond).toFixed(2) : '-');
      const { machineBusy, stolen } = cpu as CoresUsed;
      return [scenario, percent(machineBusy), percent(stolen), ...CPU_GROUPS.map((group) => perRequest(groups[group] ?? 0))];
    });
  if (rows.length === 0) return 'CPU: not measured (no /proc on this system)';
  return `CPU ms per request by process (busy, steal: % of one core, out of ${cpus().length * 100}%)\n${table(['Scenario', 'busy', 'steal', ...CPU_GROUPS], rows)}`;
}

function percent(cores: number): string {
  return `${(cores * 100).toFixed(0)}%`;
}

function verdict(load: LoadResult, target: Target | undefined): string {
  if (!clean(load)) return 'FAIL (errors)';
  if (!target) return '';
  return target.pass ? 'PASS' : 'FAIL';
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  // Text columns left-aligned, figures right-aligned.
  const numeric = header.map((_, i) => rows.every((row) => /^[\d.@/s%-]*$/.test(row[i])));
  const line = (cells: string[]) => cells.map((cell, i) => (numeric[i] ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Writes the figures as JSON under bench-results/ (gitignored); returns the file's path. */
export async function saveReport(report: BenchReport): Promise<string> {
  const directory = join(process.cwd(), 'bench-results');
  await mkdir(directory, { recursive: true });
  const file = join(directory, `${report.benchmark}-${report.startedAt.replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
