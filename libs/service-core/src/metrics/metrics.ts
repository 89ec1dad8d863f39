import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's one Prometheus registry, served at `GET /metrics` by every HTTP service.
 *
 * Metrics are created through the helpers below, which return the metric already registered under a
 * name instead of throwing: a test may build the same Nest module twice in one process, and two
 * providers of one service may report into the same metric.
 */
export const metricsRegistry = new Registry();

let defaultMetricsStarted = false;

/**
 * How often the event loop's delay is sampled, in milliseconds. prom-client's default, 10 ms, is a
 * timer that wakes every process a hundred times a second: about 1 % of a core each, idle or busy.
 * Ten samples a second still give the lag histogram far more than a scrape every 15 s needs.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** Node.js process metrics (CPU, memory, event-loop lag, GC), once per process. */
export function collectProcessMetrics(): void {
  if (defaultMetricsStarted) return;
  defaultMetricsStarted = true;
  collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
}

export function counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
  return (metricsRegistry.getSingleMetric(name) as Counter<L> | undefined) ??
    new Counter({ name, help, labelNames, registers: [metricsRegistry] });
}

export function histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
  return (metricsRegistry.getSingleMetric(name) as Histogram<L> | undefined) ??
    new Histogram({ name, help, labelNames, buckets, registers: [metricsRegistry] });
}

/** Sets one value of a gauge being collected. */
export type GaugeSetter<L extends string> = (labels: Partial<Record<L, string>>, value: number) => void;

/** Reads current values (a queue's depth, a consumer's backlog) when Prometheus scrapes. */
export type GaugeSource<L extends string> = (set: GaugeSetter<L>) => Promise<void> | void;

const gaugeSources = new Map<string, Set<GaugeSource<string>>>();

/**
 * A gauge whose values are read from their source at scrape time rather than kept up to date on every
 * change. Several sources may feed one gauge (two consumers, several queues); a failing source is
 * left out of that scrape rather than failing it. Returns the function that removes the source again
 * (call it when the component that registered it stops).
 */
export function observeGauge<L extends string>(name: string, help: string, labelNames: readonly L[], source: GaugeSource<L>): () => void {
  let sources = gaugeSources.get(name);
  if (!sources) {
    const ownSources = new Set<GaugeSource<string>>();
    sources = ownSources;
    gaugeSources.set(name, ownSources);
    new Gauge<string>({
      name,
      help,
      labelNames,
      registers: [metricsRegistry],
      // Every source reads shared state (PostgreSQL, Redis, JetStream): the processes of one instance read the same values.
      aggregator: 'max',
      async collect() {
        this.reset();
        const set: GaugeSetter<string> = (labels, value) => this.set(labels as Record<string, string>, value);
        await Promise.all([...ownSources].map(async (read) => {
          try {
            await read(set);
          } catch {
            // A dependency that cannot answer shows up in /health; the other gauges still report.
          }
        }));
      },
    });
  }
  sources.add(source as GaugeSource<string>);
  return () => sources.delete(source as GaugeSource<string>);
}

export interface GaugeDefinition {
  name: string;
  help: string;
  labelNames: readonly string[];
}

/** Sets one value of one of the gauges a shared source feeds. */
export type GaugeGroupSetter = (gauge: string, labels: Record<string, string>, value: number) => void;

/**
 * Several gauges fed by one reading (one query, one API call) per scrape: the gauges of a scrape are
 * collected together, so they share the reading in flight; the next scrape reads again.
 */
export function observeGauges(definitions: GaugeDefinition[], source: (set: GaugeGroupSetter) => Promise<void> | void): () => void {
  type Values = Map<string, Array<[Record<string, string>, number]>>;
  let reading: Promise<Values> | undefined;
  const read = (): Promise<Values> =>
    (reading ??= (async () => {
      const values: Values = new Map();
      await source((gauge, labels, value) => values.set(gauge, [...(values.get(gauge) ?? []), [labels, value]]));
      return values;
    })().finally(() => {
      reading = undefined;
    }));
  const stops = definitions.map((definition) =>
    observeGauge(definition.name, definition.help, definition.labelNames, async (set) => {
      for (const [labels, value] of (await read()).get(definition.name) ?? []) set(labels, value);
    }),
  );
  return () => stops.forEach((stop) => stop());
}

/** Latency buckets in seconds, from a cached read (1 ms) to a call that timed out (10 s). */
export const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
