import { DEFAULT_OPTIONS, formatTable, runSuggestionsBench } from './suggestions.bench.js';

/**
 * `npm run build && node dist/apps/contact-directory/bench/main.js [durationSeconds]`: contact-suggestion
 * fan-out benchmark (needs PostgreSQL and NATS, like the tests). A measurement: exits 0 and prints FAIL
 * when a target is missed; non-zero only when it could not measure.
 */
const duration = Number(process.argv[2] ?? DEFAULT_OPTIONS.durationSeconds);
const rows = await runSuggestionsBench({ ...DEFAULT_OPTIONS, durationSeconds: Number.isFinite(duration) && duration > 0 ? duration : DEFAULT_OPTIONS.durationSeconds });
console.log(formatTable(rows));
if (rows.some((row) => row.pass === false)) console.log('FAIL: a target was not met (see above)');
