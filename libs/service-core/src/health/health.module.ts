import { Controller, type DynamicModule, Get, Inject, Injectable, Logger, Module, ServiceUnavailableException, type Type } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  type HealthIndicatorResult,
  HealthIndicatorService,
  TerminusModule,
} from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { ProblemException } from '../http/problem.js';

/** A dependency the service cannot work without; `/health` reports each one. */
export interface HealthContributor {
  check(indicators: HealthIndicatorService): Promise<HealthIndicatorResult>;
}

const HEALTH_CONTRIBUTORS = Symbol('HEALTH_CONTRIBUTORS');

@Injectable()
export class DatabaseHealth implements HealthContributor {
  constructor(private readonly dataSource: DataSource) {}

  async check(indicators: HealthIndicatorService): Promise<HealthIndicatorResult> {
    const session = indicators.check('database');
    try {
      await this.dataSource.query('SELECT 1');
      return session.up();
    } catch (error) {
      return session.down({ message: (error as Error).message });
    }
  }
}

@ApiExcludeController()
@Controller('health')
class HealthController {
  private readonly logger = new Logger('Health');

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(HEALTH_CONTRIBUTORS) private readonly contributors: HealthContributor[],
  ) {}

  /**
   * Readiness: every dependency answers. 503 when one does not, naming it (not why: the reason can
   * hold internal addresses, and this path may be public; it is in the service's log).
   */
  @Get()
  @HealthCheck()
  async ready() {
    try {
      return await this.health.check(this.contributors.map((contributor) => () => contributor.check(this.indicators)));
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const { error: down = {} } = error.getResponse() as { error?: Record<string, unknown> };
      this.logger.warn({ dependencies: down }, 'not ready');
      const failing = Object.keys(down);
      throw new ProblemException(503, 'not-ready', `Not ready: ${failing.join(', ') || 'a dependency'} does not answer.`, undefined, { 'retry-after': '1' });
    }
  }

  /** Liveness: the process serves HTTP; no dependency is consulted. */
  @Get('live')
  live() {
    return { status: 'ok' };
  }
}

@Module({})
export class HealthModule {
  static forRoot(contributors: Array<Type<HealthContributor>>): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule],
      controllers: [HealthController],
      providers: [
        ...contributors,
        { provide: HEALTH_CONTRIBUTORS, useFactory: (...found: HealthContributor[]) => found, inject: contributors },
      ],
    };
  }
}
