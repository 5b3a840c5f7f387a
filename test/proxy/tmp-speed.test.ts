import t from 'tap';
import { request as httpRequest, Agent } from 'node:http';
import { devKey } from '../helpers/gateway.js';
import { proxySetup } from './helpers.js';
import { createLogger } from '../../lib/http/logger.js';
t.test('speed', async (t) => {
  const s = await proxySetup(t, { gateway: { logger: createLogger({ level: 'silent' }) } });
  const { port } = new URL(s.gw.url);
  for (const agent of [new Agent({ keepAlive: true }), false] as const) {
    const t0 = performance.now();
    for (let n = 0; n < 300; n++) {
      await new Promise<void>((resolve) => {
        const req = httpRequest({ host: '127.0.0.1', port, agent, path: '/proxy/v1/x', headers: { authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1' } }, (res) => { res.resume(); res.on('end', resolve); });
        req.end();
      });
    }
    console.log('agent', Boolean(agent), (performance.now() - t0) / 300);
    const t1 = performance.now();
    for (let n = 0; n < 300; n++) {
      await new Promise<void>((resolve) => {
        const req = httpRequest({ host: '127.0.0.1', port: new URL(s.provider.url).port, agent, path: '/v1/x' }, (res) => { res.resume(); res.on('end', resolve); });
        req.end();
      });
    }
    console.log('direct agent', Boolean(agent), (performance.now() - t1) / 300);
  }
});
