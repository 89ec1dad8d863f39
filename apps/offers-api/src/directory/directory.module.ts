import { Global, Module } from '@nestjs/common';
import { ClientsModule, Transport } from '@nestjs/microservices';
import { OffersApiConfig } from '../config/offers-api.config.js';
import { DIRECTORY_CLIENT, DirectoryClient } from './directory.client.js';

@Global()
@Module({
  imports: [
    ClientsModule.registerAsync([
      {
        name: DIRECTORY_CLIENT,
        inject: [OffersApiConfig],
        useFactory: (config: OffersApiConfig) => ({
          transport: Transport.NATS,
          options: { servers: config.NATS_URL.split(','), name: 'offers-api:directory-client' },
        }),
      },
    ]),
  ],
  providers: [DirectoryClient],
  exports: [DirectoryClient],
})
export class DirectoryModule {}
