import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { createClient, type Client } from '../shared/api.js';
import { useRoute } from '../shared/router.js';
import { Bare, Shell, type Tab } from '../shared/shell.js';
import type { PartnerWithKeys } from '../shared/types.js';
import { clientForMode, frameClassOf, ModeSwitch, TestModeBanner, useStoredMode } from '../shared/testMode.js';
import { Loading, ProblemAlert } from '../shared/ui.js';
import { modePaths } from './mode.js';
import { PortalMode } from './modeContext.js';
import { AccountPage } from './pages/Account.js';
import { CatalogPage } from './pages/Catalog.js';
import { EsimsPage } from './pages/Esims.js';
import { LoginPage } from './pages/Login.js';
import { OrderDetailPage } from './pages/OrderDetail.js';
import { OrdersPage } from './pages/Orders.js';
import { RegisterPage } from './pages/Register.js';
import { accountLink, ForgotPasswordPage, ResetPasswordPage, VerifyEmailPage } from './pages/AccountLinks.js';
import { WalletPage } from './pages/Wallet.js';
import { TestToolsPage } from './pages/TestTools.js';
import { WebhooksPage } from './pages/Webhooks.js';
import { endSession, startSession, storedSession, type Session } from './session.js';

const brand = 'eSIM partner portal';
const expiredMessage = 'Your session expired. Please log in again.';
const approvedTabs: Tab[] = [
  { id: 'account', label: 'Account' },
  { id: 'catalog', label: 'Catalog' },
  { id: 'wallet', label: 'Wallet' },
  { id: 'orders', label: 'Orders' },
  { id: 'esims', label: 'eSIMs' },
  { id: 'webhooks', label: 'Webhooks' },
];
/**
 * In test mode every account that can hold a test key (pending too, §14)
 * gets the sections, reading its test account, plus the test tools.
 */
const testTabs: Tab[] = [approvedTabs[0]!, { id: 'test', label: 'Test tools' }, ...approvedTabs.slice(1)];
/** Test keys are refused to these accounts (§14): no switch for them. */
const withoutTestMode = new Set(['rejected']);

/** Calls that need no token (login, register): a 401 there is a wrong password, not a lost session. */
export const publicApi: Client = createClient({ base: '/api/v1', headers: () => ({}), onUnauthorized: () => {} });

export function App() {
  const route = useRoute();
  const initial = useMemo(storedSession, []);
  const [session, setSession] = useState<Session | undefined>(initial === 'expired' ? undefined : initial);
  const [message, setMessage] = useState<string | undefined>(initial === 'expired' ? expiredMessage : undefined);
  const [me, setMe] = useState<PartnerWithKeys | undefined>();
  const [meError, setMeError] = useState<unknown>();
  const [storedMode, setMode] = useStoredMode('esim.portal.mode');
  const token = useRef(session?.token);
  token.current = session?.token;

  const signOut = useCallback((reason?: string) => {
    endSession();
    // The next person to log in on this tab starts live, as everyone does.
    setMode('live');
    setSession(undefined);
    setMe(undefined);
    setMessage(reason);
  }, [setMode]);

  const baseApi = useMemo(() => {
    const client: Client = createClient({
      base: '/api/v1',
      headers: (): Record<string, string> => (token.current ? { authorization: `Bearer ${token.current}` } : {}),
      // A wrong current password on a password change is 401 too, but the session is fine.
      onUnauthorized: (problem) => {
        if (problem.code !== 'INVALID_CREDENTIALS') signOut(`You were signed out: ${problem.detail} Please log in again.`);
      },
      // A view that was open becomes 403 when the account is suspended meanwhile: show the limited portal.
      onForbidden: (problem) => {
        if (problem.code === 'ACCOUNT_NOT_ACTIVE') void client.get<PartnerWithKeys>('/partner/me').then(setMe, () => {});
      },
    });
    return client;
  }, [signOut]);

  const refreshMe = useCallback(() => baseApi.get<PartnerWithKeys>('/partner/me').then(setMe, setMeError), [baseApi]);

  useEffect(() => {
    if (!session) return;
    setMeError(undefined);
    void refreshMe();
    const timer = setTimeout(() => signOut(expiredMessage), Math.min(session.expiresAt - Date.now(), 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [session, refreshMe, signOut]);

  // An e-mailed link (§4) opens its page whether or not someone is logged in on this tab.
  const link = accountLink();
  if (link?.page === 'verify-email') return <Bare brand={brand}>{<VerifyEmailPage api={publicApi} token={link.token} />}</Bare>;
  if (link?.page === 'reset-password') return <Bare brand={brand}>{<ResetPasswordPage api={publicApi} token={link.token} />}</Bare>;
  if (!session) {
    if (route.parts[0] === 'register') return <Bare brand={brand}>{<RegisterPage api={publicApi} />}</Bare>;
    if (route.parts[0] === 'forgot-password') return <Bare brand={brand}>{<ForgotPasswordPage api={publicApi} />}</Bare>;
    const onLoggedIn = (token: string, expiresIn: number) => {
      setMessage(undefined);
      setSession(startSession(token, expiresIn));
    };
    return <Bare brand={brand}>{<LoginPage api={publicApi} message={message} onLoggedIn={onLoggedIn} />}</Bare>;
  }
  if (!me) return <Bare brand={brand}>{meError ? <ProblemAlert error={meError} /> : <Loading what="Opening your account" />}</Bare>;

  const mode = withoutTestMode.has(me.status) ? 'live' : storedMode;
  const tabs = mode === 'test' ? testTabs : me.status === 'approved' ? approvedTabs : approvedTabs.slice(0, 1);
  const section = tabs.some((t) => t.id === route.parts[0]) ? route.parts[0]! : 'account';
  // Pages read through the mode's client: in test mode every read view asks for the test account's data.
  const api = clientForMode(baseApi, mode, modePaths);
  const page = (() => {
    switch (section) {
      case 'test':
        return <TestToolsPage api={api} me={me} onChanged={setMe} />;
      case 'catalog':
        return <CatalogPage api={api} route={route} />;
      case 'wallet':
        return <WalletPage api={api} route={route} />;
      case 'orders':
        return route.parts[1] ? <OrderDetailPage api={api} orderId={route.parts[1]} /> : <OrdersPage api={api} route={route} />;
      case 'esims':
        return <EsimsPage api={api} route={route} />;
      case 'webhooks':
        return <WebhooksPage api={api} route={route} />;
      default:
        return <AccountPage api={api} me={me} onChanged={setMe} />;
    }
  })();
  return (
    <Shell
      brand={brand}
      who={`${me.company} · ${me.email}`}
      onSignOut={() => signOut('You are logged out.')}
      signOutLabel="Log out"
      tabs={tabs}
      current={section}
      controls={withoutTestMode.has(me.status) ? undefined : <ModeSwitch mode={mode} onChange={setMode} />}
      banner={<TestModeBanner mode={mode}>Test data only: test keys, test wallet, test orders and simulated eSIMs. Nothing here costs money.</TestModeBanner>}
      frameClass={frameClassOf(mode)}
    >
      <PortalMode.Provider value={mode}>
        {/* Keyed by the mode too: switching reloads the page from the other account. */}
        <div key={`${mode}:${route.page}`}>{page}</div>
      </PortalMode.Provider>
    </Shell>
  );
}
