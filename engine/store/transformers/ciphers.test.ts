// Known-answer vectors (Kubernetes' recorded outputs where they exist, NIST and cross-library
// vectors otherwise) for the data ciphers, byte for byte, plus what each detects when tampered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createAesCbcTransformer } from './aescbc.ts';
import { createAesGcmTransformer } from './aesgcm.ts';
import { createSecretboxTransformer } from './secretbox.ts';
import { createXnonceGcmTransformer, deriveXnonceKey } from './xnonce-gcm.ts';
import { isTransformError } from './transform-error.ts';
import type { Transformer } from './transformer.ts';
import { hex, queuedRandom, seededRandom, toHex, toText, utf8 } from './testing/fixed-random.ts';

const PANDAS = 'pandas are the best';
const BAMBOO = { key: 'bamboo' };
const noRandom = queuedRandom();

async function rejects(promise: Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isTransformError(error), `not a TransformError: ${String(error)}`);
    assert.match((error as Error).message, message);
    return;
  }
  assert.unreachable(`expected a rejection matching ${message}`);
}

// ---------------------------------------------------------------------------------------------
// aesgcm: kube-apiserver's "legacy data compatibility" recorded output

const GCM_KEY = utf8('snorlax_awesomes');
const GCM_STORED = '9f27c8fcea8a58c467d8e437dbf2d85955f9b4bd912f4ef967d788a0cb07797dac0a3f0a0845605ca85ac8562b4ae1';

test('aesgcm: decrypts the upstream recorded value (AES-128, AAD = storage key)', async () => {
  const result = await createAesGcmTransformer(GCM_KEY, noRandom).transformFromStorage(hex(GCM_STORED), BAMBOO);
  assert.equal({ text: toText(result.data), stale: result.stale }, { text: PANDAS, stale: false });
});

test('aesgcm: with the recorded nonce, encrypts to the recorded bytes exactly', async () => {
  const nonce = hex(GCM_STORED.slice(0, 24));
  const stored = await createAesGcmTransformer(GCM_KEY, queuedRandom(nonce)).transformToStorage(utf8(PANDAS), BAMBOO);
  assert.is(toHex(stored), GCM_STORED);
});

test('aesgcm: another storage key, another key, a flipped byte or a truncation is an error, never data', async () => {
  const gcm = createAesGcmTransformer(GCM_KEY, noRandom);
  await rejects(gcm.transformFromStorage(hex(GCM_STORED), { key: 'elsewhere' }), /^cipher: message authentication failed$/);
  await rejects(createAesGcmTransformer(utf8('snorlax_awesomez'), noRandom).transformFromStorage(hex(GCM_STORED), BAMBOO), /authentication failed/);
  const stored = hex(GCM_STORED);
  for (let i = 0; i < stored.length; i++) {
    const tampered = Uint8Array.from(stored);
    tampered[i] = tampered[i]! ^ 0x01;
    await rejects(gcm.transformFromStorage(tampered, BAMBOO), /authentication failed/);
  }
  await rejects(gcm.transformFromStorage(stored.subarray(0, 11), BAMBOO), /^the stored data was shorter than the required size$/);
  await rejects(gcm.transformFromStorage(stored.subarray(0, 27), BAMBOO), /authentication failed/);
});

// ---------------------------------------------------------------------------------------------
// KMS v2 extended-nonce data cipher: upstream recorded output

const SEED = hex('5d40323a820ff95561675e3b95e81867c5fdd561d35a88a2d08b08aa9d4fcf5c');
const XNONCE_STORED =
  '2442759e33945fbad709db577a0f037fd8a709fc76979b8942209debcecb9d57efe3d6ff6a1ef6ee9a5003b9833b3043cec1e47b35175b151107a8d2416b0e296bbf66b5d102fcefdf' +
  '9a78f293d271';

test('kms v2 data cipher: decrypts the upstream recorded value (HKDF expand-only DEK from the seed)', async () => {
  const result = await createXnonceGcmTransformer(SEED, noRandom).transformFromStorage(hex(XNONCE_STORED), BAMBOO);
  assert.is(toText(result.data), PANDAS);
});

test('kms v2 data cipher: with the recorded info and nonce, encrypts to the recorded bytes exactly', async () => {
  const stored = hex(XNONCE_STORED);
  const random = queuedRandom(stored.subarray(0, 32), stored.subarray(32, 44));
  assert.is(toHex(await createXnonceGcmTransformer(SEED, random).transformToStorage(utf8(PANDAS), BAMBOO)), XNONCE_STORED);
});

test('kms v2 data cipher: the DEK is HMAC(seed, info ‖ 01), not extract-then-expand HKDF', async () => {
  const { hkdfSync } = await import('node:crypto');
  const info = hex(XNONCE_STORED.slice(0, 64));
  const withExtract = new Uint8Array(hkdfSync('sha256', SEED, new Uint8Array(0), info, 32));
  assert.is.not(toHex(deriveXnonceKey(SEED, info)), toHex(withExtract));
});

test('kms v2 data cipher: every flipped byte (info, nonce, body, tag) is detected', async () => {
  const xnonce = createXnonceGcmTransformer(SEED, noRandom);
  const stored = hex(XNONCE_STORED);
  for (let i = 0; i < stored.length; i++) {
    const tampered = Uint8Array.from(stored);
    tampered[i] = tampered[i]! ^ 0x80;
    await rejects(xnonce.transformFromStorage(tampered, BAMBOO), /authentication failed/);
  }
  await rejects(xnonce.transformFromStorage(stored.subarray(0, 31), BAMBOO), /shorter than the required size/);
});

// ---------------------------------------------------------------------------------------------
// aescbc: NIST SP 800-38A F.2.5 (no upstream recording exists)

const CBC_KEY = hex('603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4');
const CBC_IV = hex('000102030405060708090a0b0c0d0e0f');

test('aescbc: NIST F.2.5 first block, then a full block of PKCS#7 padding', async () => {
  const stored = await createAesCbcTransformer(CBC_KEY, queuedRandom(CBC_IV)).transformToStorage(hex('6bc1bee22e409f96e93d7e117393172a'), BAMBOO);
  assert.is(stored.length, 16 + 32);
  assert.is(toHex(stored.subarray(0, 32)), '000102030405060708090a0b0c0d0e0ff58c4c04d6e5f1ba779eabfb5f7bfbd6');
  const back = await createAesCbcTransformer(CBC_KEY, noRandom).transformFromStorage(stored, BAMBOO);
  assert.is(toHex(back.data), '6bc1bee22e409f96e93d7e117393172a');
});

test('aescbc: "firstvalue" with the NIST key and IV gives the measured bytes, and reads back', async () => {
  const expected = '000102030405060708090a0b0c0d0e0f39837487f6966c3488d2643787dd61ce';
  const stored = await createAesCbcTransformer(CBC_KEY, queuedRandom(CBC_IV)).transformToStorage(utf8('firstvalue'), BAMBOO);
  assert.is(toHex(stored), expected);
  assert.is(toText((await createAesCbcTransformer(CBC_KEY, noRandom).transformFromStorage(hex(expected), { key: 'any' })).data), 'firstvalue');
});

test('aescbc (unauthenticated): detects only what breaks the block structure or the padding', async () => {
  const cbc = createAesCbcTransformer(CBC_KEY, noRandom);
  const stored = hex('000102030405060708090a0b0c0d0e0f39837487f6966c3488d2643787dd61ce');
  await rejects(cbc.transformFromStorage(stored.subarray(0, 15), BAMBOO), /^the stored data was shorter than the required size$/);
  await rejects(cbc.transformFromStorage(stored.subarray(0, 16), BAMBOO), /^invalid PKCS7 data \(empty or not padded\)$/);
  await rejects(cbc.transformFromStorage(stored.subarray(0, 31), BAMBOO), /^the stored data is not a multiple of the block size$/);
  // A flip in the (only, last) ciphertext block scrambles the padding: detected.
  for (let i = 16; i < 32; i++) {
    const tampered = Uint8Array.from(stored);
    tampered[i] = tampered[i]! ^ 0x01;
    await rejects(cbc.transformFromStorage(tampered, BAMBOO), /^invalid padding on input$/);
  }
  // A flip in the IV only flips the same plaintext bit: NOT detected — the documented limit of CBC.
  const ivFlip = Uint8Array.from(stored);
  ivFlip[0] = ivFlip[0]! ^ 0x01;
  assert.is(toText((await cbc.transformFromStorage(ivFlip, BAMBOO)).data), 'girstvalue');
  // A wrong key is caught by the padding check almost always (about 255 in 256).
  await rejects(createAesCbcTransformer(new Uint8Array(32).fill(9), noRandom).transformFromStorage(stored, BAMBOO), /^invalid padding on input$/);
});

// ---------------------------------------------------------------------------------------------
// secretbox: tweetnacl = libsodium = @noble vector (no upstream recording exists)

const BOX_KEY = new Uint8Array(32).fill(1);
const BOX_NONCE = new Uint8Array(24).fill(2);
const BOX = 'ff232b4463504bb310e41b8225a3108b9b0cac8e0a4cb3211518';

test('secretbox: encrypts to nonce ‖ tag ‖ ciphertext exactly, and reads back', async () => {
  const stored = await createSecretboxTransformer(BOX_KEY, queuedRandom(BOX_NONCE)).transformToStorage(utf8('firstvalue'), BAMBOO);
  assert.is(toHex(stored), toHex(BOX_NONCE) + BOX);
  assert.is(toText((await createSecretboxTransformer(BOX_KEY, noRandom).transformFromStorage(stored, { key: 'unbound' })).data), 'firstvalue');
});

test('secretbox: every flipped byte, a wrong key or a truncation is detected', async () => {
  const box = createSecretboxTransformer(BOX_KEY, noRandom);
  const stored = hex(toHex(BOX_NONCE) + BOX);
  for (let i = 0; i < stored.length; i++) {
    const tampered = Uint8Array.from(stored);
    tampered[i] = tampered[i]! ^ 0x04;
    await rejects(box.transformFromStorage(tampered, BAMBOO), /^output array was not large enough for encryption$/);
  }
  await rejects(createSecretboxTransformer(new Uint8Array(32).fill(2), noRandom).transformFromStorage(stored, BAMBOO), /not large enough/);
  await rejects(box.transformFromStorage(stored.subarray(0, 39), BAMBOO), /^the stored data was shorter than the required size$/);
});

test('random IVs and nonces: the same plaintext never stores the same bytes twice', async () => {
  const random = seededRandom('distinct');
  const transformers: Transformer[] = [
    createAesCbcTransformer(CBC_KEY, random),
    createAesGcmTransformer(GCM_KEY, random),
    createSecretboxTransformer(BOX_KEY, random),
    createXnonceGcmTransformer(SEED, random),
  ];
  for (const transformer of transformers) {
    const a = await transformer.transformToStorage(utf8(PANDAS), BAMBOO);
    const b = await transformer.transformToStorage(utf8(PANDAS), BAMBOO);
    assert.is.not(toHex(a), toHex(b));
    assert.is(toText((await transformer.transformFromStorage(b, BAMBOO)).data), PANDAS);
  }
});

test.run();
