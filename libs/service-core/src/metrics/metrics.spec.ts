import { describe, expect, it } from '@jest/globals';
import { counter, metricsRegistry, observeGauge, observeGauges } from './metrics.js';

describe('metrics', () => {
  it('returns the metric already registered under a name instead of failing', () => {
    const first = counter('spec_things_total', 'Things.', ['kind']);
    const second = counter('spec_things_total', 'Things.', ['kind']);
    expect(second).toBe(first);
  });

  it('reads observed gauges from every source at scrape time, leaves out a failing one, and forgets removed sources', async () => {
    let depth = 3;
    const stopA = observeGauge('spec_depth', 'Depth.', ['queue'], (set) => set({ queue: 'a' }, depth));
    const stopB = observeGauge('spec_depth', 'Depth.', ['queue'], (set) => set({ queue: 'b' }, 7));
    const stopBroken = observeGauge('spec_depth', 'Depth.', ['queue'], async () => {
      throw new Error('redis down');
    });
    depth = 4;
    let text = await metricsRegistry.getSingleMetricAsString('spec_depth');
    expect(text).toContain('spec_depth{queue="a"} 4');
    expect(text).toContain('spec_depth{queue="b"} 7');

    stopB();
    stopBroken();
    text = await metricsRegistry.getSingleMetricAsString('spec_depth');
    expect(text).toContain('spec_depth{queue="a"} 4');
    expect(text).not.toContain('queue="b"');
    stopA();
  });
});

describe('gauges fed by one source', () => {
  it('reads the source once per scrape for all its gauges, and again at the next scrape', async () => {
    let reads = 0;
    const stop = observeGauges(
      [
        { name: 'spec_backlog', help: 'Backlog.', labelNames: [] },
        { name: 'spec_backlog_age_seconds', help: 'Age.', labelNames: [] },
      ],
      async (set) => {
        reads += 1;
        set('spec_backlog', {}, 10 * reads);
        set('spec_backlog_age_seconds', {}, reads);
      },
    );
    let text = await metricsRegistry.metrics();
    expect(reads).toBe(1);
    expect(text).toMatch(/^spec_backlog 10$/m);
    expect(text).toMatch(/^spec_backlog_age_seconds 1$/m);
    text = await metricsRegistry.metrics();
    expect(reads).toBe(2);
    expect(text).toMatch(/^spec_backlog 20$/m);
    stop();
  });
});
