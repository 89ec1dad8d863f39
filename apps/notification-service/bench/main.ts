import { runPushBenchmark } from './push.bench.js';

/** `npm run build && node dist/apps/notification-service/bench/main.js [workers]` from the repository root. */
const workers = Number(process.argv[2] ?? 10_000);
const result = await runPushBenchmark({ workers, targetMs: 3_000, maxRssMb: 300 });
console.log(`notification-service push fan-out: one offer to ${result.workers} workers, one device each (recording transport)`);
console.log(`  first push handed to the transport  ${result.firstHandedOverMs} ms after publish`);
console.log(`  last push handed to the transport   ${result.handedOverMs} ms after publish (goal ≤ 3000 ms)`);
console.log(`  all ${result.devices} deliveries recorded      ${result.deliveriesRecordedMs} ms after publish`);
console.log(`  throughput                          ${result.pushesPerSecond} pushes/s`);
console.log(`  service RSS before / sampled peak   ${result.rssBeforeMb} MB / ${result.peakRssSampledMb} MB`);
console.log(`  service VmHWM (peak RSS, lifetime)  ${result.vmHwmMb} MB (goal < 300 MB)`);
console.log(JSON.stringify(result));
console.log(result.passed ? 'PASS' : 'FAIL');
// A measurement: a missed goal is reported above, not as a failed run.
