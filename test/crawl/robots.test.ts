import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_USER_AGENT } from '../../src/crawl/fetcher.js';
import { MAX_CRAWL_DELAY_SECONDS, MAX_ROBOTS_BYTES, RobotsRules } from '../../src/crawl/robots.js';

const ROBOTS_URL = 'http://example.com/robots.txt';
const AGENT = 'wga/0.1 (web graph analyzer; +https://example.org/wga)';

function rules(text: string, agent = AGENT, status: number | null = 200): RobotsRules {
  return RobotsRules.fromAnswer(ROBOTS_URL, status, text, agent);
}

const page = (path: string): string => `http://example.com${path}`;

describe('RobotsRules from a 2xx answer', () => {
  const text = [
    '# our group comes first',
    'User-agent: *',
    'Disallow: /everyone-out/',
    'Crawl-delay: 1',
    '',
    'User-agent: WGA',
    'Disallow: /private/',
    'Allow: /private/public',
    'Disallow: /*.cgi$',
    'Disallow: /search?',
    'Crawl-delay: 2.5',
    '',
    'User-agent: otherbot',
    'Disallow: /',
  ].join('\n');

  it("applies our group (matched on the User-Agent's product token, any case) and not '*'", () => {
    const robots = rules(text);
    assert.equal(robots.disallowAll, null);
    assert.equal(robots.allows(page('/')), true);
    assert.equal(robots.allows(page('/everyone-out/x')), true, "'*' does not apply when our group exists");
    assert.equal(robots.allows(page('/private/')), false);
    assert.equal(robots.allows(page('/private/secret.html')), false);
    assert.equal(robots.allows(page('/private/public')), true, 'the longer Allow wins');
    assert.equal(robots.allows(page('/private/public/more')), true);
    assert.equal(robots.allows(page('/privatex')), true);
    assert.equal(robots.allows(page('/run.cgi')), false, '* and $ patterns');
    assert.equal(robots.allows(page('/run.cgi?x=1')), true, '$ anchors the end of path and query');
    assert.equal(robots.allows(page('/search?q=1')), false, 'the query is part of what rules match');
    assert.equal(robots.allows(page('/search')), true);
    assert.equal(robots.crawlDelayMs(), 2500);
  });

  it("falls back to '*' for an agent with no group of its own", () => {
    const robots = rules(text, 'SomeBot/3.0');
    assert.equal(robots.allows(page('/everyone-out/x')), false);
    assert.equal(robots.allows(page('/private/secret.html')), true);
    assert.equal(robots.crawlDelayMs(), 1000);
    const excluded = rules(text, 'OtherBot/1.0 (+https://other.example/bot)');
    assert.equal(excluded.allows(page('/')), false);
    assert.equal(excluded.allows(page('/anything')), false);
  });

  it('reads the default User-Agent, and agents with no version or a URL in their comment', () => {
    for (const agent of [DEFAULT_USER_AGENT, 'wga', 'WGA/2', 'wga (+https://example.org/about/wga)']) {
      const robots = rules(text, agent);
      assert.equal(robots.allows(page('/private/x')), false, agent);
      assert.equal(robots.allows(page('/everyone-out/x')), true, agent);
      assert.equal(robots.crawlDelayMs(), 2500, agent);
    }
  });

  it('shares one group between the User-agent lines that open it', () => {
    const robots = rules('User-agent: a\nUser-agent: wga\nUser-agent: b\nDisallow: /shared\n\nUser-agent: *\nDisallow: /\n');
    assert.equal(robots.allows(page('/shared/x')), false);
    assert.equal(robots.allows(page('/other')), true);
  });

  it('allows everything for an empty body, comments only, or groups for other agents only', () => {
    for (const body of ['', '\n\n', '# nothing to see\n', 'User-agent: otherbot\nDisallow: /\n', 'Sitemap: http://example.com/sitemap.xml\n', 'garbage without colons\n\u0000\u00ff']) {
      const robots = rules(body);
      assert.equal(robots.allows(page('/')), true, JSON.stringify(body));
      assert.equal(robots.allows(page('/a/b?c')), true, JSON.stringify(body));
      assert.equal(robots.crawlDelayMs(), 0, JSON.stringify(body));
    }
    assert.equal(rules('User-agent: *\nDisallow:\n').allows(page('/x')), true, 'an empty Disallow allows all');
    assert.equal(rules('User-agent: *\nDisallow: /\n').allows(page('/x')), false);
    assert.equal(rules('user-agent: *\r\ndisallow: /x\r\n', AGENT, 204).allows(page('/x')), false, 'CRLF, lower-case fields, any 2xx');
  });

  it('does not judge URLs of another origin', () => {
    const robots = RobotsRules.fromAnswer('https://example.com/robots.txt', 200, 'User-agent: *\nDisallow: /\n', AGENT);
    assert.equal(robots.allows('https://example.com/a'), false);
    assert.equal(robots.allows('https://example.com:443/a'), false);
    assert.equal(robots.allows('http://example.com/a'), true, 'another scheme');
    assert.equal(robots.allows('https://example.com:8443/a'), true, 'another port');
    assert.equal(robots.allows('https://www.example.com/a'), true, 'another host');
  });

  it('caps Crawl-delay at MAX_CRAWL_DELAY_SECONDS and ignores unusable values', () => {
    assert.equal(MAX_CRAWL_DELAY_SECONDS, 60);
    const delay = (value: string): number => rules(`User-agent: *\nCrawl-delay: ${value}\n`).crawlDelayMs();
    assert.equal(delay('10'), 10_000);
    assert.equal(delay('0.25'), 250);
    assert.equal(delay('60'), 60_000);
    assert.equal(delay('61'), 60_000);
    assert.equal(delay('86400'), 60_000);
    assert.equal(delay('1e9'), 60_000);
    assert.equal(delay('Infinity'), 60_000, 'an infinite delay is above the cap');
    assert.equal(delay('0'), 0);
    assert.equal(delay('-5'), 0);
    assert.equal(delay('soon'), 0);
    assert.equal(delay(''), 0);
    assert.equal(delay('NaN'), 0);
  });

  it('reads only the first MAX_ROBOTS_BYTES of a body', () => {
    assert.equal(MAX_ROBOTS_BYTES, 500 * 1024);
    const head = 'User-agent: *\nDisallow: /early\n';
    const rule = 'Disallow: /edge';
    // A comment filling the body so that `rule` ends exactly at the limit, then rules past it.
    const padding = `#${'x'.repeat(MAX_ROBOTS_BYTES - head.length - rule.length - 2)}\n`;
    const body = `${head}${padding}${rule}ZZZ\nDisallow: /late\nCrawl-delay: 30\n`;
    assert.equal((head + padding + rule).length, MAX_ROBOTS_BYTES);
    const robots = rules(body);
    assert.equal(robots.allows(page('/early')), false);
    assert.equal(robots.allows(page('/edge')), false, 'the rule cut at the limit reads /edge');
    assert.equal(robots.allows(page('/edgeZZZ')), false);
    assert.equal(robots.allows(page('/late')), true, 'past the limit: not read');
    assert.equal(robots.crawlDelayMs(), 0, 'past the limit: not read');
    // A huge body of junk neither throws nor refuses.
    const junk = rules('x'.repeat(3 * MAX_ROBOTS_BYTES));
    assert.equal(junk.allows(page('/')), true);
  });
});

describe('RobotsRules from other answers', () => {
  const body = 'User-agent: *\nDisallow: /\nCrawl-delay: 10\n';

  it('allows everything for 3xx (redirects not followed further) and 4xx, whatever the body says', () => {
    for (const status of [300, 301, 302, 307, 308, 399, 400, 401, 403, 404, 410, 418, 429, 451, 499]) {
      const robots = rules(body, AGENT, status);
      assert.equal(robots.disallowAll, null, String(status));
      assert.equal(robots.allows(page('/')), true, String(status));
      assert.equal(robots.allows(page('/x/y')), true, String(status));
      assert.equal(robots.crawlDelayMs(), 0, String(status));
    }
  });

  it('refuses everything for 5xx and for a server that could not be reached', () => {
    for (const status of [500, 502, 503, 504, 599]) {
      const robots = rules('', AGENT, status);
      assert.equal(robots.disallowAll, `robots.txt answered ${status}`);
      assert.equal(robots.allows(page('/')), false);
      assert.equal(robots.allows('http://elsewhere.example/'), false);
      assert.equal(robots.crawlDelayMs(), 0);
    }
    const unreachable = rules(body, AGENT, null);
    assert.equal(unreachable.disallowAll, 'robots.txt unreachable');
    assert.equal(unreachable.allows(page('/')), false);
  });

  it('treats the 2xx bounds exactly', () => {
    assert.equal(rules(body, AGENT, 200).allows(page('/')), false);
    assert.equal(rules(body, AGENT, 299).allows(page('/')), false);
    assert.equal(rules(body, AGENT, 299).disallowAll, null, 'refused by the rules, not wholesale');
    assert.equal(rules(body, AGENT, 300).allows(page('/')), true);
    assert.equal(rules(body, AGENT, 499).allows(page('/')), true);
    assert.equal(rules(body, AGENT, 500).allows(page('/')), false);
  });

  it('builds the fixed answers directly', () => {
    assert.equal(RobotsRules.allowAll(AGENT).allows(page('/x')), true);
    assert.equal(RobotsRules.allowAll(AGENT).crawlDelayMs(), 0);
    const refused = RobotsRules.refuseAll('because', AGENT);
    assert.equal(refused.disallowAll, 'because');
    assert.equal(refused.allows(page('/x')), false);
    assert.equal(RobotsRules.parse(ROBOTS_URL, 'User-agent: *\nDisallow: /no\n', AGENT).allows(page('/no')), false);
  });
});
