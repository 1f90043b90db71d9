/**
 * What keeps other web sites and other machines out: a per-server secret token (needed on every
 * request that changes something; on every request when the server listens beyond loopback), a
 * Host header check against DNS rebinding, and headers that keep the GUI's pages from running
 * anything but its own scripts.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hostname as machineName, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';

export const TOKEN_HEADER = 'x-wga-token';
export const TOKEN_COOKIE = 'wga_token';

export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

/** A token must be printable without quoting (it goes into a header, a cookie and a meta tag). */
export function validToken(token: string): boolean {
  return /^[A-Za-z0-9._~-]{16,200}$/.test(token);
}

export function sameToken(given: string | undefined | null, expected: string): boolean {
  if (given === undefined || given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1';
  return false;
}

function withPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`.toLowerCase();
}

/**
 * The Host header values a request may carry: the bound address and the loopback names; beyond
 * loopback also this machine's name and addresses (a wildcard bind answers on all of them).
 */
export function allowedHosts(boundHost: string, port: number): Set<string> {
  const names = new Set<string>([boundHost.replace(/^\[|\]$/g, ''), 'localhost', '127.0.0.1', '::1']);
  if (!isLoopback(boundHost)) {
    names.add(machineName());
    for (const list of Object.values(networkInterfaces())) for (const address of list ?? []) names.add(address.address);
  }
  const allowed = new Set<string>();
  for (const name of names) {
    allowed.add(withPort(name, port));
    if (port === 80) allowed.add(name.toLowerCase());
  }
  return allowed;
}

/** Content Security Policy of every answer: the GUI's own scripts and styles, its own API, nothing else. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};
