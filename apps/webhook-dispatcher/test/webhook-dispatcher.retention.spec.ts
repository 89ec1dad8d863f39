import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, queryDatabase } from '@availability/testing';
import { DISPATCHER_ADMIN_TOKEN, type DispatcherTestBed, startDispatcherTestBed } from './harness.js';

/** The running service prunes its delivery log, tells an operator how far behind it is, and answers for what it pruned. */
let bed: DispatcherTestBed;

beforeAll(async () => {
  bed = await startDispatcherTestBed({ RETENTION_INTERVAL_MS: '1000' });
}, 60_000);

afterAll(async () => {
  await bed?.stop();
});

describe('webhook-dispatcher retention', () => {
  it('prunes a delivery finished longer ago than the log keeps them; redelivering it is a 404 problem that says so', async () => {
    const [old, recent]: Array<{ id: number }> = await queryDatabase(
      bed.database.url,
      `INSERT INTO dispatcher.delivery (event_id, organisation_id, event_subject, webhook_id, method, path, body, url, status, attempts, created_at, updated_at)
       SELECT gen_random_uuid(), 'org-retention', 'offers.response.recorded', 'wh', 'POST', '/offer/response', '{}', 'http://localhost/x', 'succeeded', 1, t, t
       FROM unnest(ARRAY[now() - interval '31 days', now() - interval '29 days']) AS t ORDER BY t RETURNING id`,
    );
    await eventually(async () => (await queryDatabase(bed.database.url, `SELECT 1 FROM dispatcher.delivery WHERE id = $1`, [old.id])).length === 0, 20_000, 'the old delivery pruned');

    const response = await fetch(`${bed.dispatcher.url}/admin/deliveries/${old.id}/redeliver`, { method: 'POST', headers: { authorization: `Bearer ${DISPATCHER_ADMIN_TOKEN}` } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 404, detail: expect.stringContaining('keeps a finished delivery for 30 days') });
    expect((await bed.admin.call('GET', `/admin/deliveries/${recent.id}`)).status).toBe(200);
  });

  it("reports each class's rows, oldest row's age and period in /metrics", async () => {
    const metrics = await (await fetch(`${bed.dispatcher.url}/metrics`)).text();
    const oldest = /^retention_oldest_age_seconds\{class="delivery-log"\} ([\d.e+]+)$/m.exec(metrics);
    expect(Number(oldest?.[1])).toBeGreaterThan(28 * 86_400);
    expect(Number(oldest?.[1])).toBeLessThan(30 * 86_400);
    expect(metrics).toMatch(/^retention_keep_seconds\{class="delivery-log"\} 2592000$/m);
    expect(metrics).toMatch(/^retention_table_rows\{class="outbox"\} \d+$/m);
    expect(metrics).toMatch(/^retention_pruned_rows_total\{class="delivery-log"\} [1-9]\d*$/m);
  });
});
