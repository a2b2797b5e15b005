import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  forbiddenAddressReason,
  forbiddenHostReason,
  parseIPv4,
  parseIPv6,
} from '#shared/kernel/destination-policy.ts';

describe('destination policy (SSRF guard)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each([
    // decimal, octal, hex and shortened IPv4 forms
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['127.1', 'loopback'],
    ['0251.0376.0251.0376', 'metadata'],
    ['2852039166', 'metadata'],
    ['012.0.0.1', 'private'],
    // IPv6 forms that carry an IPv4 address
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:169.254.169.254]', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['0:0:0:0:0:ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'metadata'],
  ])('refuses the disguised form %s (%s)', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '172.32.0.1',
    '100.128.0.1',
    '11.0.0.1',
  ])('allows the public address %s', (address) => {
    expect(forbiddenAddressReason(address)).toBeUndefined();
  });

  it('refuses text that is not an address (callers pass resolved addresses only)', () => {
    expect(forbiddenAddressReason('localhost')).toBe('reserved');
    expect(forbiddenAddressReason('1.2.3.4.5')).toBe('reserved');
    expect(forbiddenAddressReason('::ffff:999.0.0.1')).toBe('reserved');
  });

  it.each([
    ['127.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['[::1]', 'loopback'],
    ['LocalHost', 'loopback'],
    ['db.localhost.', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['[fd00:ec2::254]', 'metadata'],
  ])('refuses the host %s as typed, before any lookup (%s)', (host, reason) => {
    expect(forbiddenHostReason(host)).toBe(reason);
  });

  it('leaves names and public literals to the connect-time check', () => {
    for (const host of ['smtp.example.com', 'hooks.example.com', '8.8.8.8', '[2606:4700::1111]', 'localhost.example'])
      expect(forbiddenHostReason(host), host).toBeUndefined();
  });

  it('judges every IPv4 address the same in dotted, decimal and IPv4-mapped IPv6 form', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => {
        const dotted = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
        const mappedHex = `::ffff:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
        expect(parseIPv4(dotted)).toBe(n);
        expect(parseIPv4(String(n))).toBe(n);
        expect(parseIPv6(mappedHex)).toBe(0xffff00000000n + BigInt(n));
        const reason = forbiddenAddressReason(dotted);
        expect(forbiddenAddressReason(String(n))).toBe(reason);
        expect(forbiddenAddressReason(`::ffff:${dotted}`)).toBe(reason);
        expect(forbiddenAddressReason(mappedHex)).toBe(reason);
      }),
      { numRuns: 2000 },
    );
  });
});
