import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { createClient, type Client } from '../shared/api.js';
import { useRoute } from '../shared/router.js';
import { Bare, Shell, type Tab } from '../shared/shell.js';
import type { PartnerWithKeys } from '../shared/types.js';
import { Loading, ProblemAlert } from '../shared/ui.js';
import { AccountPage } from './pages/Account.js';
import { CatalogPage } from './pages/Catalog.js';
import { EsimsPage } from './pages/Esims.js';
import { LoginPage } from './pages/Login.js';
import { OrderDetailPage } from './pages/OrderDetail.js';
import { OrdersPage } from './pages/Orders.js';
import { RegisterPage } from './pages/Register.js';
import { accountLink, ForgotPasswordPage, ResetPasswordPage, VerifyEmailPage } from './pages/AccountLinks.js';
import { WalletPage } from './pages/Wallet.js';
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

/** Calls that need no token (login, register): a 401 there is a wrong password, not a lost session. */
export const publicApi: Client = createClient({ base: '/api/v1', headers: () => ({}), onUnauthorized: () => {} });

export function App() {
  const route = useRoute();
  const initial = useMemo(storedSession, []);
  const [session, setSession] = useState<Session | undefined>(initial === 'expired' ? undefined : initial);
  const [message, setMessage] = useState<string | undefined>(initial === 'expired' ? expiredMessage : undefined);
  const [me, setMe] = useState<PartnerWithKeys | undefined>();
  const [meError, setMeError] = useState<unknown>();
  const token = useRef(session?.token);
  token.current = session?.token;

  const signOut = useCallback((reason?: string) => {
    endSession();
    setSession(undefined);
    setMe(undefined);
    setMessage(reason);
  }, []);

  const api = useMemo(() => {
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

  const refreshMe = useCallback(() => api.get<PartnerWithKeys>('/partner/me').then(setMe, setMeError), [api]);

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

  const approved = me.status === 'approved';
  const section = approved && approvedTabs.some((t) => t.id === route.parts[0]) ? route.parts[0]! : 'account';
  const page = (() => {
    switch (section) {
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
      tabs={approved ? approvedTabs : approvedTabs.slice(0, 1)}
      current={section}
    >
      <div key={route.page}>{page}</div>
    </Shell>
  );
}
