export { createCipher, parseEncryptionKeys, type Cipher, type EncryptionKey } from './cipher.js';
