// The ceiling: what redis-server itself does on this machine for the commands one uncontended
// section needs — the grant (`SET key token PX lease NX`) and the release (the store's release
// script by EVALSHA) — measured with `redis-benchmark` at S1's concurrency and the store's own
// pipelining (command-batch.ts writes up to 16 commands at once). S1 as a share of it is what the
// floor ratio hides: how much of the server's own capacity a lock section leaves unused.
//
// An upper bound, not a target: redis-benchmark's release runs on a key that does not hold its
// token (the script stops after its GET), and no client work — promises, a body, a token — is in it.
import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { releaseChannels } from '../runtime/store/release-channel';
import { DEFAULT_RELEASE_CHANNEL } from '../runtime/store/scripted-lock-store';
import { RELEASE } from '../runtime/store/scripts/release';

export interface Ceiling {
  readonly clients: number;
  readonly pipeline: number;
  /** Grants per second (SET NX PX). */
  readonly grantsPerSec: number;
  /** Release scripts per second (EVALSHA). */
  readonly releasesPerSec: number;
  /** One grant and one release a section: 1 / (1/grants + 1/releases). */
  readonly sectionsPerSec: number;
}

/** The store writes up to this many commands in one write (runtime/store/command-batch.ts). */
const STORE_PIPELINE = 16;
const REQUESTS = 200_000;

export async function measureCeiling(url: string, clients: number): Promise<Ceiling | string> {
  const { hostname, port } = new URL(url);
  const redis = new Redis(url);
  let sha: string;
  try {
    sha = String(await redis.script('LOAD', RELEASE.source));
  } finally {
    redis.disconnect();
  }
  const key = 'ceiling:__rand_int__';
  const run = (command: readonly string[]): number | string => {
    const ran = spawnSync(
      'redis-benchmark',
      [
        '-h',
        hostname,
        '-p',
        port,
        '-c',
        String(clients),
        '-P',
        String(STORE_PIPELINE),
        '-n',
        String(REQUESTS),
        '-r',
        '1000000',
        '-q',
        ...command,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (ran.error)
      return `redis-benchmark could not run (${(ran.error as NodeJS.ErrnoException).code ?? ran.error.message})`;
    const rate = /([\d.]+) requests per second/.exec(ran.stdout)?.[1];
    // A server error (a script called with the wrong arguments) is on stderr, the progress on stdout.
    const said = (ran.stderr.trim() || ran.stdout.split('\r').pop() || '').slice(0, 300);
    return rate ? Number(rate) : `redis-benchmark printed no rate: ${said}`;
  };
  const grants = run(['SET', key, 'token', 'PX', '30000', 'NX']);
  if (typeof grants === 'string') return grants;
  // The release's KEYS and ARGV as the store sends them for a release with nobody waiting, built by
  // the script's own functions: a change to its arguments cannot leave the ceiling behind.
  const call = {
    token: 'token',
    channels: releaseChannels(DEFAULT_RELEASE_CHANNEL, false),
    leaving: false,
    succession: undefined,
  };
  const keys = RELEASE.keys(key, call);
  const releases = run(['EVALSHA', sha, String(keys.length), ...keys, ...RELEASE.args(key, call).map(String)]);
  if (typeof releases === 'string') return releases;
  return {
    clients,
    pipeline: STORE_PIPELINE,
    grantsPerSec: grants,
    releasesPerSec: releases,
    sectionsPerSec: 1 / (1 / grants + 1 / releases),
  };
}
