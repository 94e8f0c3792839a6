import { describe, expect, it, vi } from 'vitest';
import { checkToken, isLoopbackHost, parseBaseUrl } from '../../src/client/base-url.js';
import { UsageError } from '../../src/errors.js';
import { createClient } from '../../src/index.js';

describe('parseBaseUrl accepts', () => {
  it.each([
    ['https://shop.example.com', {}, 'https://shop.example.com/'],
    ['https://shop.example.com/', {}, 'https://shop.example.com/'],
    ['https://shop.example.com/store', {}, 'https://shop.example.com/store/'],
    ['  https://shop.example.com  ', {}, 'https://shop.example.com/'],
    ['http://localhost:8080', {}, 'http://localhost:8080/'],
    ['http://sandbox.localhost', {}, 'http://sandbox.localhost/'],
    ['http://127.0.0.1:3000', {}, 'http://127.0.0.1:3000/'],
    ['http://127.1.2.3', {}, 'http://127.1.2.3/'],
    ['http://[::1]:4010', {}, 'http://[::1]:4010/'],
    ['http://shop.internal', { allowInsecureHttp: true }, 'http://shop.internal/'],
  ])('%s %o → %s', (input, options, expected) => {
    expect(parseBaseUrl(input, options)).toBe(expected);
  });
});

describe('parseBaseUrl refuses', () => {
  it.each([
    [undefined, {}, /missing/],
    ['', {}, /missing/],
    ['shop.example.com', {}, /not an absolute URL/],
    ['/api', {}, /not an absolute URL/],
    ['ftp://shop.example.com', {}, /must use https/],
    ['file:///etc/passwd', {}, /must use https/],
    ['http://shop.example.com', {}, /plain http:\/\/ to a host that is not loopback/],
    ['http://localhost.example.com', {}, /not loopback/],
    ['http://128.0.0.1', {}, /not loopback/],
    ['http://0.0.0.0', {}, /not loopback/],
    ['https://user:secret@shop.example.com', {}, /credentials/],
    ['https://topup_live_abc@shop.example.com', {}, /credentials/],
    ['https://shop.example.com/?token=topup_live_abc', {}, /query or fragment/],
    ['https://shop.example.com/?x=1', {}, /query or fragment/],
    ['https://shop.example.com/#frag', {}, /query or fragment/],
    ['https://shop.example.com/api/v1', {}, /without \/api\/v1/],
    ['https://shop.example.com/api/v1/', {}, /without \/api\/v1/],
  ])('%j %o', (input, options, message) => {
    expect(() => parseBaseUrl(input, options)).toThrow(UsageError);
    expect(() => parseBaseUrl(input, options)).toThrow(message);
  });

  it('never repeats the refused URL in its message', () => {
    const secret = 'topup_live_Zq81secret';
    for (const url of [
      `https://u:${secret}@shop.example.com`,
      `https://shop.example.com/?token=${secret}`,
      `http://${secret}.example.com`,
    ]) {
      let caught: unknown;
      try {
        parseBaseUrl(url);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(UsageError);
      expect(String(caught)).not.toContain(secret);
      expect((caught as Error).stack).not.toContain(secret);
    }
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['api.localhost', true],
    ['localhost.', true],
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['[::1]', true],
    ['localhostx', false],
    ['mylocalhost', false],
    ['10.0.0.1', false],
    ['[::2]', false],
    ['127.0.0.1.nip.io', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('checkToken', () => {
  it.each([
    [undefined, undefined],
    ['topup_test_abc123', 'topup_test_abc123'],
  ])('accepts %j', (token, expected) => {
    expect(checkToken(token)).toBe(expected);
  });

  it.each([[''], [' topup_test_abc'], ['topup_test_abc\n'], ['topup test'], ['topup_test_\u0000x'], ['topup_test_é'], [42], [null]])(
    'refuses %j',
    (token) => {
      expect(() => checkToken(token)).toThrow(UsageError);
    },
  );
});

describe('createClient', () => {
  it('refuses bad options before anything is sent', () => {
    const fetch = vi.fn<typeof globalThis.fetch>();
    const cases: Array<Record<string, unknown>> = [
      { baseUrl: 'http://shop.example.com', token: 'topup_test_x' },
      { baseUrl: 'https://shop.example.com', token: 'has space' },
      { baseUrl: 'https://shop.example.com', timeout: 0 },
      { baseUrl: 'https://shop.example.com', timeout: 3_000_000_000 },
      { baseUrl: 'https://shop.example.com', maxRetries: -1 },
      { baseUrl: 'https://shop.example.com', maxRetries: 1.5 },
      { baseUrl: 'https://shop.example.com', maxRetryTime: Number.NaN },
      { baseUrl: 'https://shop.example.com', userAgent: 'bad\nagent' },
    ];
    for (const options of cases) {
      expect(() => createClient({ ...(options as { baseUrl: string }), fetch })).toThrow(UsageError);
    }
    expect(fetch).not.toHaveBeenCalled();
  });

  it('refuses a dot-segment path parameter before anything is sent', async () => {
    const fetch = vi.fn<typeof globalThis.fetch>();
    const client = createClient({ baseUrl: 'https://shop.example.com', token: 'topup_test_x', fetch, pacing: false });
    for (const code of ['', '.', '..']) {
      await expect(client.orders.get(code)).rejects.toBeInstanceOf(UsageError);
    }
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('the global fetch, looked up at each request', () => {
  it('still tells a sandbox without limits when it is the global fetch: pacing off, as with the fetch option', async () => {
    const { createSandbox } = await import('../../mocks/assembly/sandbox.js');
    const { resolveOptions } = await import('../../src/client/options.js');
    const unlimited = await createSandbox({ rateLimit: false });
    vi.stubGlobal('fetch', unlimited.fetch);
    try {
      expect(resolveOptions({ baseUrl: 'https://shop.example.com' }).pacing).toBe(false);
      expect(resolveOptions({ baseUrl: 'https://shop.example.com', fetch: unlimited.fetch }).pacing).toBe(false);
    } finally {
      vi.unstubAllGlobals();
    }
    expect(resolveOptions({ baseUrl: 'https://shop.example.com' }).pacing).toBe(true);
  });
});
