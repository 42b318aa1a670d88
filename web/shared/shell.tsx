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

/** Header, tab bar and main landmark shared by both apps. */
export function Shell(props: { brand: string; who: ComponentChildren; onSignOut: () => void; signOutLabel: string; tabs: Tab[]; current: string; children: ComponentChildren }) {
  return (
    <>
      <header class="top">
        <span class="brand">{props.brand}</span>
        <span class="who">{props.who}</span>
        <button type="button" onClick={props.onSignOut}>
          {props.signOutLabel}
        </button>
      </header>
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
