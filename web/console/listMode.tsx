/**
 * The console's test-mode switch on its lists (§14): operators see test
 * activity only when they ask for it. The mode lives in the list's route
 * (`?livemode=false`), so live is the default and a link to test data
 * says so; the list then reads with `livemode=false` and shows in orange.
 */
import type { ComponentChildren } from 'preact';
import { navigate, withParams, type Route } from '../shared/router.js';
import { ModeSwitch, modeQuery, TestModeBanner, type Mode } from '../shared/testMode.js';
import type { Query } from '../shared/api.js';

export function listModeOf(route: Route): Mode {
  return route.query.get('livemode') === 'false' ? 'test' : 'live';
}

/** The list's query in this mode: `livemode=false` in test, nothing (live, the API's default) otherwise. */
export function listModeQuery(route: Route): Query {
  return modeQuery(listModeOf(route));
}

export function ListModeSwitch({ route, id = 'list-test-mode' }: { route: Route; id?: string }) {
  return <ModeSwitch id={id} mode={listModeOf(route)} onChange={(mode) => navigate(withParams(route, { livemode: mode === 'test' ? 'false' : '' }))} />;
}

/** Frames a list of test data in orange under a banner; live lists are shown as they always were. */
export function ListModeFrame({ route, what, children }: { route: Route; what: string; children: ComponentChildren }) {
  const mode = listModeOf(route);
  if (mode === 'live') return <>{children}</>;
  return (
    <div class="test-list">
      <TestModeBanner mode={mode}>Test {what} only: partners’ sandbox activity, never part of a live total.</TestModeBanner>
      {children}
    </div>
  );
}
