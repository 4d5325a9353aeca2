// One instance of the Nest service: started as several processes side by side, each tick's report
// is written by one of them only.
//
//   node examples/nest/dist/main.mjs <instance> [runForMs]
//
// Prints `ready <ms>` once the cron jobs are scheduled, a line for each report this instance
// writes, and `closing <ms>` before it stops.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { close, configure } from 'lockweave';
import { AppModule } from './app.module.mjs';

const runForMs = Number(process.argv[3] ?? 10_000);
configure({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
const app = await NestFactory.createApplicationContext(AppModule, { logger: ['error', 'warn'] });
console.log(`ready ${Date.now()}`);
await new Promise((resolve) => setTimeout(resolve, runForMs));
console.log(`closing ${Date.now()}`);
await app.close();
await close();
