import type { FastifyReply } from 'fastify';
import type { RedisClient } from '../redis.js';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '@esim/errors';
import { redisUnavailable } from './credentialCache.js';
import { LocalDenials } from './localDenials.js';

export interface Window {
  points: number;
  durationMs: number;
}

/**
 * A fixed-window counter in Redis, shared by every gateway replica. A key
 * `consume` saw refused is refused locally until its window resets
 * (auth/localDenials.ts): the same answer Redis would give, without asking.
 */
export class RateLimit {
  private readonly limiter: RateLimiterRedis;
  private readonly denials = new LocalDenials();

  constructor(
    redis: RedisClient,
    keyPrefix: string,
    readonly window: Window,
  ) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix,
      points: window.points,
      duration: Math.max(1, Math.ceil(window.durationMs / 1000)),
    });
  }

  /** What a refused request is told. */
  get refusedDetail(): string {
    return `Rate limit of ${this.window.points} requests exceeded; retry after the reset.`;
  }

  /** Counts one request; over the limit it throws RATE_LIMITED. Headers (§3) are set either way. */
  async consume(key: string, reply?: FastifyReply): Promise<void> {
    if (this.deniedLocally(key, reply)) throw new AppError('RATE_LIMITED', this.refusedDetail);
    const sentAt = performance.now();
    try {
      const result = await this.limiter.consume(key);
      if (reply) this.setHeaders(reply, result);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) redisUnavailable(error);
      this.denials.deny(key, sentAt, error.msBeforeNext);
      this.setRefusedHeaders(reply, error);
      throw new AppError('RATE_LIMITED', this.refusedDetail);
    }
  }

  /**
   * True, with the headers `consume` would set on its refusal, when Redis
   * has already refused the key in its current window: the caller answers
   * RATE_LIMITED (`refusedDetail`) without counting, and without the work it
   * would have started beside the count.
   */
  deniedLocally(key: string, reply?: FastifyReply): boolean {
    const deniedMs = this.denials.msBeforeReset(key);
    if (deniedMs <= 0) return false;
    this.setRefusedHeaders(reply, new RateLimiterRes(0, deniedMs));
    return true;
  }

  private setRefusedHeaders(reply: FastifyReply | undefined, result: RateLimiterRes): void {
    if (!reply) return;
    this.setHeaders(reply, result);
    reply.header('retry-after', String(Math.max(1, Math.ceil(result.msBeforeNext / 1000))));
  }

  /** True when the key has used up its window (checked before counting, e.g. failed logins). */
  async exhausted(key: string, reply: FastifyReply): Promise<boolean> {
    const result = await this.limiter.get(key).catch(redisUnavailable);
    if (!result || result.consumedPoints < this.window.points) return false;
    reply.header('retry-after', String(Math.max(1, Math.ceil(result.msBeforeNext / 1000))));
    return true;
  }

  /**
   * Counts an attempt before it is evaluated, atomically in Redis, so any
   * number of concurrent attempts let at most `points` through a window;
   * over it, RATE_LIMITED with Retry-After (no RateLimit-* headers: these
   * are failure budgets, not request quotas). `refund` gives the point back
   * when the attempt turns out not to be a failure.
   */
  async countAttempt(key: string, reply: FastifyReply, detail: string): Promise<void> {
    try {
      await this.limiter.consume(key);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) redisUnavailable(error);
      reply.header('retry-after', String(Math.max(1, Math.ceil(error.msBeforeNext / 1000))));
      throw new AppError('RATE_LIMITED', detail);
    }
  }

  async refund(key: string): Promise<void> {
    await this.limiter.reward(key, 1).catch(redisUnavailable);
  }

  async penalize(key: string): Promise<void> {
    await this.limiter.penalty(key, 1).catch(redisUnavailable);
  }

  private setHeaders(reply: FastifyReply, result: RateLimiterRes): void {
    reply.header('ratelimit-limit', String(this.window.points));
    reply.header('ratelimit-remaining', String(Math.max(0, result.remainingPoints)));
    reply.header('ratelimit-reset', String(Math.max(0, Math.ceil(result.msBeforeNext / 1000))));
  }
}
