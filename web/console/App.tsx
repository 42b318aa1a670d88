import { useCallback, useMemo, useRef, useState } from 'preact/hooks';
import { createClient } from '../shared/api.js';
import { useRoute } from '../shared/router.js';
import { Bare, Shell, type Tab } from '../shared/shell.js';
import { ApplicationsPage } from './pages/Applications.js';
import { AuditPage } from './pages/Audit.js';
import { DeliveriesPage } from './pages/Deliveries.js';
import { EsimsPage } from './pages/Esims.js';
import { OperatorsPage } from './pages/Operators.js';
import { OrderDetailPage, OrdersPage } from './pages/Orders.js';
import { PartnerPage } from './pages/Partner.js';
import { PartnersPage } from './pages/Partners.js';
import { PlanPage } from './pages/Plan.js';
import { PlansPage } from './pages/Plans.js';
import { SignInPage } from './pages/SignIn.js';
import { RoleContext } from './role.js';
import { endSession, saveSession, sessionHeaders, storedSession, type Session } from './session.js';

const brand = 'eSIM operator console';
const tabs: Tab[] = [
  { id: 'applications', label: 'Applications' },
  { id: 'partners', label: 'Partners' },
  { id: 'plans', label: 'Plans' },
  { id: 'orders', label: 'Orders' },
  { id: 'esims', label: 'eSIMs' },
  { id: 'deliveries', label: 'Webhook deliveries' },
  { id: 'audit', label: 'Audit log' },
  { id: 'operators', label: 'Operators' },
];

export function App() {
  const route = useRoute();
  const [session, setSession] = useState<Session | undefined>(storedSession);
  const [message, setMessage] = useState<string | undefined>();
  const current = useRef(session);
  current.current = session;

  const signOut = useCallback((reason?: string) => {
    endSession();
    setSession(undefined);
    setMessage(reason);
  }, []);

  const api = useMemo(
    () =>
      createClient({
        base: '/admin/v1',
        headers: () => (current.current ? sessionHeaders(current.current) : {}),
        onUnauthorized: (problem) => signOut(`You were signed out: ${problem.detail}`),
      }),
    [signOut],
  );

  if (!session) {
    const onSignedIn = (signedIn: Session) => {
      saveSession(signedIn);
      setMessage(undefined);
      setSession(signedIn);
    };
    return <Bare brand={brand}>{<SignInPage message={message} onSignedIn={onSignedIn} />}</Bare>;
  }

  const section = tabs.some((t) => t.id === route.parts[0]) ? route.parts[0]! : 'applications';
  const id = route.parts[1];
  const page = (() => {
    switch (section) {
      case 'partners':
        return id ? <PartnerPage api={api} partnerId={id} /> : <PartnersPage api={api} route={route} />;
      case 'plans':
        return id ? <PlanPage api={api} planId={id === 'new' ? undefined : id} /> : <PlansPage api={api} route={route} />;
      case 'orders':
        return id ? <OrderDetailPage api={api} orderId={id} /> : <OrdersPage api={api} route={route} />;
      case 'esims':
        return <EsimsPage api={api} route={route} />;
      case 'deliveries':
        return <DeliveriesPage api={api} route={route} />;
      case 'audit':
        return <AuditPage api={api} route={route} />;
      case 'operators':
        return <OperatorsPage api={api} route={route} />;
      default:
        return <ApplicationsPage api={api} route={route} />;
    }
  })();
  const role = session.role ?? 'viewer';
  const who = `${session.email ?? (session.id === 'admin-token' ? 'the admin token' : (session.id ?? 'unknown'))}${session.operator ? ` (${session.operator})` : ''}, ${role}`;
  return (
    <RoleContext.Provider value={role}>
      <Shell brand={brand} who={`Signed in as ${who}`} onSignOut={() => signOut('You are signed out.')} signOutLabel="Sign out" tabs={tabs} current={section}>
        <div key={route.page}>{page}</div>
      </Shell>
    </RoleContext.Provider>
  );
}
