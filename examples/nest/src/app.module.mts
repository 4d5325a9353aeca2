import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { ReportJob } from './report.job.mjs';

@Module({ imports: [ScheduleModule.forRoot()], providers: [ReportJob] })
export class AppModule {}
