import { type DynamicModule, Global, Module } from '@nestjs/common';
import { JOB_QUEUES_OPTIONS, JobQueues, type JobQueuesOptions, RedisHealth } from './job-queues.js';

@Global()
@Module({})
export class JobsModule {
  static forRoot(options: () => JobQueuesOptions): DynamicModule {
    return {
      module: JobsModule,
      providers: [{ provide: JOB_QUEUES_OPTIONS, useFactory: options }, JobQueues, RedisHealth],
      exports: [JobQueues, RedisHealth],
    };
  }
}
