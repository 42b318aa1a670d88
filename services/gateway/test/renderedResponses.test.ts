// Protects the gateway's rendered catalog pages: a page is never served across a catalog version or a change event, an older request never overwrites a newer version, and concurrent misses render once.
import { describe, expect, it } from 'vitest';
import { RenderedResponses } from '../src/cache/renderedResponses.js';

const body = (text: string) => Buffer.from(text);

function renderer(text: () => string) {
  const calls: string[] = [];
  return {
    calls,
    render: async () => {
      calls.push(text());
      return body(text());
    },
  };
}

describe('RenderedResponses', () => {
  it('when the same key is asked at the same version, then it is rendered once and the same bytes are served', async () => {
    const responses = new RenderedResponses(5_000);
    const { calls, render } = renderer(() => 'page');
    expect((await responses.get(1, 'standard|FR|1|50', render)).toString()).toBe('page');
    expect((await responses.get(1, 'standard|FR|1|50', render)).toString()).toBe('page');
    expect(calls).toHaveLength(1);
  });

  it('when keys differ (tier, filter, page), then each has its own page', async () => {
    const responses = new RenderedResponses(5_000);
    expect((await responses.get(1, 'standard|FR|1|50', async () => body('standard'))).toString()).toBe('standard');
    expect((await responses.get(1, 'premium|FR|1|50', async () => body('premium'))).toString()).toBe('premium');
    expect((await responses.get(1, 'standard|FR|1|50', async () => body('other'))).toString()).toBe('standard');
  });

  it('when the version goes up (a plan write answered on any replica), then the next call renders afresh', async () => {
    const responses = new RenderedResponses(60_000);
    let text = 'before';
    const { render } = renderer(() => text);
    await responses.get(1, 'k', render);
    text = 'after';
    expect((await responses.get(2, 'k', render)).toString()).toBe('after');
  });

  it('when a request carries an older version than one already seen, then it is rendered for itself and does not replace the newer page', async () => {
    const responses = new RenderedResponses(60_000);
    await responses.get(3, 'k', async () => body('v3'));
    expect((await responses.get(2, 'k', async () => body('v2'))).toString()).toBe('v2');
    expect((await responses.get(3, 'k', async () => body('other'))).toString()).toBe('v3');
  });

  it('when a change event arrives, then stored pages are dropped and a rendering under way is not stored', async () => {
    const responses = new RenderedResponses(60_000);
    let release!: () => void;
    const slow = responses.get(1, 'k', () => new Promise<Buffer>((resolve) => (release = () => resolve(body('stale')))));
    responses.changed();
    release();
    expect((await slow).toString()).toBe('stale');
    expect((await responses.get(1, 'k', async () => body('fresh'))).toString()).toBe('fresh');
  });

  it('when pages are rendered just after a change event, then they are rendered again once the change has settled', async () => {
    let now = 0;
    const responses = new RenderedResponses(60_000, () => now);
    responses.changed();
    await responses.get(1, 'k', async () => body('maybe stale'));
    now = 999;
    expect((await responses.get(1, 'k', async () => body('x'))).toString()).toBe('maybe stale');
    now = 1_000;
    expect((await responses.get(1, 'k', async () => body('settled'))).toString()).toBe('settled');
  });

  it('when a page has outlived its time, then it is rendered again', async () => {
    let now = 0;
    const responses = new RenderedResponses(5_000, () => now);
    await responses.get(1, 'k', async () => body('old'));
    now = 5_000;
    expect((await responses.get(1, 'k', async () => body('new'))).toString()).toBe('new');
  });

  it('when many requests miss the same page at once, then it is rendered once', async () => {
    const responses = new RenderedResponses(5_000);
    const { calls, render } = renderer(() => 'page');
    await Promise.all(Array.from({ length: 20 }, () => responses.get(1, 'k', render)));
    expect(calls).toHaveLength(1);
  });

  it('when rendering fails, then the caller hears it and the next call tries again', async () => {
    const responses = new RenderedResponses(5_000);
    await expect(Promise.resolve(responses.get(1, 'k', async () => Promise.reject(new Error('catalog down'))))).rejects.toThrow('catalog down');
    expect((await responses.get(1, 'k', async () => body('back'))).toString()).toBe('back');
  });
});
