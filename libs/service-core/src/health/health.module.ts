import { Controller, type DynamicModule, Get, Inject, Injectable, Module, type Type } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  type HealthIndicatorResult,
  HealthIndicatorService,
  TerminusModule,
} from '@nestjs/terminus';
import { DataSource } from 'typeorm';

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
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(HEALTH_CONTRIBUTORS) private readonly contributors: HealthContributor[],
  ) {}

  /** Readiness: every dependency answers. 503 when one does not. */
  @Get()
  @HealthCheck()
  ready() {
    return this.health.check(this.contributors.map((contributor) => () => contributor.check(this.indicators)));
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
