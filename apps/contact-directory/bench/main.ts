import { DEFAULT_OPTIONS, formatTable, runSuggestionsBench } from './suggestions.bench.js';

/**
 * `npm run build && node dist/apps/contact-directory/bench/main.js [durationSeconds]`: contact-suggestion
 * fan-out benchmark (needs PostgreSQL and NATS, like the tests). Exits 1 when a target is missed.
 */
const duration = Number(process.argv[2] ?? DEFAULT_OPTIONS.durationSeconds);
const rows = await runSuggestionsBench({ ...DEFAULT_OPTIONS, durationSeconds: Number.isFinite(duration) && duration > 0 ? duration : DEFAULT_OPTIONS.durationSeconds });
console.log(formatTable(rows));
process.exitCode = rows.some((row) => row.pass === false) ? 1 : 0;
