import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { GatewayError, fail } from '../../errors.js';
import type { ByteBudget } from './byte-budget.js';
import type { BodyVerifier } from './routing.js';

export interface BodyLimits {
  /** Largest body accepted (413 beyond). */
  limit: number;
  /** Shared by every request in flight (503 + Retry-After beyond). */
  budget: ByteBudget;
  /** The whole body must arrive within this long (408 after). */
  timeoutMs: number;
}

export interface VerifiedBody {
  body: Buffer;
  /** True when the signature matches the bytes. */
  verified: boolean;
  /** Gives the body's bytes back to the budget once the request is handled. */
  release(): void;
}

const retryAfterSeconds = 5;

/** The connection is closed after the answer: the rest of an unread body is never read. */
function refuse(ctx: Context, error: GatewayError): never {
  ctx.set('Connection', 'close');
  if (error.code === 'service_unavailable') ctx.set('Retry-After', String(retryAfterSeconds));
  throw error;
}

/**
 * Reads a provider webhook body as it streams in, feeding the signature check chunk by chunk,
 * under a per-request limit, the process-wide byte budget and a read deadline. Accepts a
 * Buffer a host framework kept (`req.rawBody`, or `express.raw()`'s `req.body`).
 */
export async function readVerifiedBody(
  ctx: Context,
  verifier: BodyVerifier,
  limits: BodyLimits,
): Promise<VerifiedBody> {
  const req = ctx.req as IncomingMessage & { rawBody?: unknown; body?: unknown };
  const kept = Buffer.isBuffer(req.rawBody) ? req.rawBody : Buffer.isBuffer(req.body) ? req.body : undefined;
  if (kept) {
    verifier.update(kept);
    return { body: kept, verified: verifier.verify(), release: () => {} };
  }
  if (req.body !== undefined || req.readableEnded) {
    fail(
      'invalid_request',
      'A body parser read this request before the gateway, so its signature cannot be checked: mount the gateway before body parsers.',
    );
  }
  const tooLarge = () =>
    new GatewayError('payload_too_large', `The webhook body is larger than ${limits.limit} bytes.`);
  const busy = () =>
    new GatewayError('service_unavailable', 'Too many webhook bodies are being received at once; retry later.');
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limits.limit) refuse(ctx, tooLarge());
  // A declared length is taken from the budget up front, so a body that cannot fit is never read.
  let taken = 0;
  if (declared > 0) {
    if (!limits.budget.tryTake(declared)) refuse(ctx, busy());
    taken = declared;
  }
  const release = () => {
    limits.budget.giveBack(taken);
    taken = 0;
  };
  try {
    const chunks = await new Promise<Buffer[]>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (error: GatewayError | Error | undefined) => {
        clearTimeout(timer);
        req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted);
        if (error) {
          req.pause();
          reject(error);
        } else resolve(chunks);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.limit) return done(tooLarge());
        if (size > taken) {
          if (!limits.budget.tryTake(size - taken)) return done(busy());
          taken = size;
        }
        verifier.update(chunk);
        chunks.push(chunk);
      };
      const onEnd = () => done(undefined);
      const onError = (error: Error) => done(error);
      const onAborted = () => done(new Error('the sender closed the connection'));
      const timer = setTimeout(
        () =>
          done(
            new GatewayError('request_timeout', `The webhook body did not arrive within ${limits.timeoutMs / 1000} s.`),
          ),
        limits.timeoutMs,
      );
      req.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onAborted);
    });
    // A body whose signature does not match is dropped as it is, never copied into one buffer.
    const verified = verifier.verify();
    return { body: verified ? Buffer.concat(chunks) : Buffer.alloc(0), verified, release };
  } catch (error) {
    release();
    if (GatewayError.is(error)) refuse(ctx, error);
    throw error;
  }
}
