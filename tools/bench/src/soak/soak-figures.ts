/** One reading of everything the soak watches, `at` ms after the load started. */
export interface SoakSample {
  at: number;
  /** Resident set and used heap of each service, bytes. */
  memory: Record<string, { rss: number; heap: number }>;
  /** Rows in each table that grows with traffic. */
  rows: Record<string, number>;
  /** Age of each retention class's oldest row, seconds (its services' metrics). */
  oldestAge: Record<string, number>;
  streamBytes: number;
  redisKeys: number;
  redisBytes: number;
}

/**
 * Growth of `values` over `times` (ms) per ten minutes, as a fraction of their mean: the least-squares
 * slope, so one high reading (a collection not yet run) moves it little. 0 for fewer than 3 readings
 * or a mean of 0.
 */
export function growthPerTenMinutes(times: number[], values: number[]): number {
  const n = Math.min(times.length, values.length);
  if (n < 3) return 0;
  const meanT = times.slice(0, n).reduce((sum, t) => sum + t, 0) / n;
  const meanV = values.slice(0, n).reduce((sum, v) => sum + v, 0) / n;
  if (meanV === 0) return 0;
  let covariance = 0;
  let variance = 0;
  for (let i = 0; i < n; i++) {
    covariance += (times[i] - meanT) * (values[i] - meanV);
    variance += (times[i] - meanT) ** 2;
  }
  if (variance === 0) return 0;
  return ((covariance / variance) * 600_000) / meanV;
}

/** A measured series and what it grew by: the figure a check prints. */
export interface Series {
  name: string;
  growth: number;
  first: number;
  last: number;
  max: number;
}

/** Every series the soak's flatness checks read, from the samples taken once the logs have cycled once. */
export function soakSeries(samples: SoakSample[]): { memory: Series[]; rows: Series[]; stream: Series; redis: Series[] } {
  const times = samples.map((sample) => sample.at);
  const series = (name: string, values: number[]): Series => ({
    name,
    growth: growthPerTenMinutes(times, values),
    first: values[0] ?? Number.NaN,
    last: values.at(-1) ?? Number.NaN,
    max: Math.max(...values),
  });
  const services = Object.keys(samples[0]?.memory ?? {});
  const tables = Object.keys(samples[0]?.rows ?? {});
  return {
    memory: services.flatMap((app) => [
      series(`${app} RSS`, samples.map((sample) => sample.memory[app]?.rss ?? Number.NaN)),
      series(`${app} heap`, samples.map((sample) => sample.memory[app]?.heap ?? Number.NaN)),
    ]),
    rows: tables.map((table) => series(table, samples.map((sample) => sample.rows[table]))),
    stream: series('event stream bytes', samples.map((sample) => sample.streamBytes)),
    redis: [series('Redis keys', samples.map((sample) => sample.redisKeys)), series('Redis bytes', samples.map((sample) => sample.redisBytes))],
  };
}

/**
 * Retention classes whose oldest row was older than its policy allows at some reading: its keep
 * period, plus one pruning interval and `slackSeconds` for the run itself. Only readings taken once
 * a class could first have been pruned count.
 */
export function overdueClasses(samples: SoakSample[], keepSeconds: Record<string, number>, intervalSeconds: number, slackSeconds: number): string[] {
  const overdue = new Set<string>();
  for (const sample of samples) {
    for (const [name, age] of Object.entries(sample.oldestAge)) {
      const keep = keepSeconds[name];
      if (keep === undefined || sample.at / 1000 < keep + intervalSeconds) continue;
      if (age > keep + intervalSeconds + slackSeconds) overdue.add(`${name} (oldest ${Math.round(age)} s, keeps ${Math.round(keep)} s, at ${Math.round(sample.at / 1000)} s)`);
    }
  }
  return [...overdue];
}
