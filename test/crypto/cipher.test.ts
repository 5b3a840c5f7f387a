import { randomBytes } from 'node:crypto';
import t from 'tap';
import { createCipher, parseEncryptionKeys } from '../../lib/crypto/index.js';

t.test('seal and open round-trip; tampering is detected', async (t) => {
  const cipher = createCipher([{ id: 'k1', key: randomBytes(32) }]);
  const box = cipher.seal({ access_token: 'secret', n: 1 });
  t.notMatch(box, 'secret');
  t.same(cipher.open(box), { access_token: 'secret', n: 1 });
  t.not(cipher.seal('x'), cipher.seal('x'), 'a fresh IV every time');
  const parts = box.split('.');
  const data = Buffer.from(parts[4] as string, 'base64url');
  data[0] = (data[0] as number) ^ 1;
  parts[4] = data.toString('base64url');
  t.throws(() => cipher.open(parts.join('.')), 'a flipped bit fails authentication');
});

t.test('rotation: the new key seals, the old key still opens', async (t) => {
  const oldKey = { id: 'old', key: randomBytes(32) };
  const before = createCipher([oldKey]).seal({ v: 1 });
  const rotated = createCipher([{ id: 'new', key: randomBytes(32) }, oldKey]);
  t.same(rotated.open(before), { v: 1 });
  t.ok(rotated.isStale(before));
  t.notOk(rotated.isStale(rotated.seal({ v: 2 })));
  t.throws(() => createCipher([{ id: 'new', key: randomBytes(32) }]).open(before), 'an unknown key id is refused');
});

t.test('key parsing and validation', async (t) => {
  const a = randomBytes(32).toString('base64');
  const b = randomBytes(32).toString('base64');
  t.same(
    parseEncryptionKeys(`${a}`).map((k) => k.id),
    ['k1'],
  );
  t.same(
    parseEncryptionKeys(`k2:${a},k1:${b}`).map((k) => k.id),
    ['k2', 'k1'],
  );
  t.throws(() => createCipher(parseEncryptionKeys(randomBytes(16).toString('base64'))), /32 bytes/);
});
