/* One very large body through a target, either way, streamed from and into a fixed block. */
import { request } from 'node:http';
import type { Target } from './scenarios.js';

const block = Buffer.alloc(64 * 1024, 'large-body ');

export interface Transfer {
  bytes: number;
  seconds: number;
  ok: boolean;
}

/** Uploads `bytes` to the upstream's `/sink` through `target`; ok when all of them arrived. */
export function upload(target: Target, bytes: number): Promise<Transfer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        method: 'POST',
        path: `${target.prefix}/sink`,
        headers: { ...target.headers, 'content-type': 'application/octet-stream', 'content-length': String(bytes) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => {
          const received = Number((JSON.parse(text || '{}') as { received?: number }).received);
          resolve({
            bytes,
            seconds: (performance.now() - started) / 1000,
            ok: res.statusCode === 200 && received === bytes,
          });
        });
      },
    );
    req.on('error', reject);
    let left = bytes;
    const pump = () => {
      while (left > 0) {
        const chunk = left >= block.length ? block : block.subarray(0, left);
        left -= chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

/** Downloads `bytes` from the upstream's `/bytes` through `target`; ok when all of them came. */
export function download(target: Target, bytes: number): Promise<Transfer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: target.port, path: `${target.prefix}/bytes?size=${bytes}`, headers: target.headers },
      (res) => {
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
        });
        res.on('end', () =>
          resolve({
            bytes,
            seconds: (performance.now() - started) / 1000,
            ok: res.statusCode === 200 && received === bytes,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
