import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { ConfirmHost } from './actions.js';

export interface Tab {
  /** The first route segment it opens, e.g. `orders`. */
  id: string;
  label: string;
}

/** Sets the tab's title: "Orders · Partner portal". */
export function useTitle(page: string, app: string): void {
  useEffect(() => {
    document.title = `${page} · ${app}`;
  }, [page, app]);
}

/**
 * Header, tab bar and main landmark shared by both apps. `controls` sit in
 * the header beside the sign-out button (the test-mode switch); `banner`
 * spans the page under it and `frameClass` wraps the tabs and the page
 * (test mode's orange frame, web/shared/testMode.tsx).
 */
export function Shell(props: {
  brand: string;
  who: ComponentChildren;
  onSignOut: () => void;
  signOutLabel: string;
  tabs: Tab[];
  current: string;
  controls?: ComponentChildren;
  banner?: ComponentChildren;
  frameClass?: string;
  children: ComponentChildren;
}) {
  return (
    <>
      <header class="top">
        <span class="brand">{props.brand}</span>
        <span class="who">{props.who}</span>
        {props.controls}
        <button type="button" onClick={props.onSignOut}>
          {props.signOutLabel}
        </button>
      </header>
      {props.banner}
      <div class={props.frameClass}>
        <nav class="tabs" aria-label="Sections">
          <ul>
            {props.tabs.map((tab) => (
              <li key={tab.id}>
                <a href={`#/${tab.id}`} aria-current={tab.id === props.current ? 'page' : undefined}>
                  {tab.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main>{props.children}</main>
      </div>
      <ConfirmHost />
    </>
  );
}

/** A page shown before signing in: just the brand and the form. */
export function Bare({ brand, children }: { brand: string; children: ComponentChildren }) {
  return (
    <>
      <header class="top">
        <span class="brand">{brand}</span>
      </header>
      <main>{children}</main>
      <ConfirmHost />
    </>
  );
}
