import { useEffect, useState } from 'preact/hooks';
import type { Client } from '../../shared/api.js';
import { useAction } from '../../shared/actions.js';
import { EsimState } from '../../shared/esim.js';
import { formatDateTime } from '../../shared/format.js';
import { formatMoney } from '../../shared/money.js';
import { href } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { Esim, Livemode, Order } from '../../shared/types.js';
import { TestBadge } from '../../shared/testMode.js';
import { Badge, CopyButton, Loaded, useResource } from '../../shared/ui.js';
import { ApiCall, curlPost } from '../apiCall.js';
import { keyVariableOf } from '../mode.js';
import { useMode } from '../modeContext.js';
import { CancelPanel } from './CancelOrder.js';
import { TestHelpers } from './TestHelpers.js';
import { TopUpPanel } from './TopUp.js';

/** While provisioning runs, look again this often (bounded: the page stops when it settles or closes). */
const refreshWhileProcessingMs = 3_000;

/**
 * One order; once provisioned, its eSIM: the QR code to scan and the
 * activation code to copy (§7), then what happened after the sale (§13):
 * the eSIM's status, use and bundles, top-up plans and the cancel rules.
 */
export function OrderDetailPage({ api, orderId }: { api: Client; orderId: string }) {
  useTitle(`Order ${orderId}`, 'Partner portal');
  const order = useResource(() => api.get<Order>(`/partner/me/orders/${encodeURIComponent(orderId)}`), [orderId]);
  const processing = order.data?.status === 'processing';
  useEffect(() => {
    if (!processing || order.loading) return;
    const timer = setTimeout(order.reload, refreshWhileProcessingMs);
    return () => clearTimeout(timer);
  }, [processing, order.loading, order.reload]);

  return (
    <>
      <p>
        <a href="#/orders">← All orders</a>
      </p>
      <h1>Order {orderId}</h1>
      <Loaded resource={order}>{(o) => <OrderView api={api} order={o} />}</Loaded>
    </>
  );
}

function OrderView({ api, order }: { api: Client; order: Order }) {
  const iccid = order.iccid ?? order.esim?.iccid;
  return (
    <>
      <section class="card" aria-labelledby="order-title">
        <h2 id="order-title">
          {order.planName} <Badge value={order.status} /> <TestBadge livemode={(order as Order & Livemode).livemode} />
        </h2>
        <dl class="facts">
          <dt>Kind</dt>
          <dd>{order.kind === 'topup' ? 'Top-up of an existing eSIM' : 'New eSIM'}</dd>
          {order.kind === 'topup' && order.iccid && (
            <>
              <dt>Tops up</dt>
              <dd>
                <code>{order.iccid}</code>
              </dd>
            </>
          )}
          <dt>Price</dt>
          <dd>
            {formatMoney(order.price, order.currency)}
            {order.quantity > 1 && ` (${order.quantity} × ${formatMoney(order.unitPrice, order.currency)})`}
          </dd>
          {order.refundedAmount !== null && (
            <>
              <dt>Refunded</dt>
              <dd>{formatMoney(order.refundedAmount, order.currency)}</dd>
            </>
          )}
          <dt>Customer</dt>
          <dd>
            {order.email} · {order.phoneNumber}
          </dd>
          <dt>Your reference</dt>
          <dd>
            <code>{order.clientRequestId}</code>
          </dd>
          <dt>Placed</dt>
          <dd>{formatDateTime(order.createdAt)}</dd>
          <dt>Updated</dt>
          <dd>{formatDateTime(order.updatedAt)}</dd>
        </dl>
        {order.status === 'processing' && <p role="status">The eSIM is being provisioned; this page updates by itself.</p>}
        {order.status === 'failed' && (
          <p class="alert alert-error">
            Provisioning failed: {order.failureReason ?? 'no reason given'}. The price was refunded to your wallet.
          </p>
        )}
        {order.status === 'partially_provisioned' && (
          <p class="alert alert-error">
            {order.esims.length} of {order.quantity} eSIMs could be provisioned; the {order.quantity - order.esims.length} missing were refunded to your wallet.
          </p>
        )}
        {order.status === 'cancelled' && <p>This order was cancelled and its price refunded to your wallet. Its eSIM details are kept below for the record.</p>}
      </section>
      {order.quantity > 1 ? (
        <GroupEsims api={api} order={order} />
      ) : (
        <>
          {order.esim && <InstallCard order={order} esim={order.esim} />}
          {iccid && order.status !== 'failed' && <AfterTheSale api={api} order={order} iccid={iccid} />}
        </>
      )}
    </>
  );
}

/** A group order (§7): every eSIM with its QR code, and the activation codes as one CSV file. */
function GroupEsims({ api, order }: { api: Client; order: Order }) {
  const keyVariable = keyVariableOf(useMode());
  const download = async () => {
    const csv = await api.getText(`/partner/me/orders/${encodeURIComponent(order.id)}/esims.csv`);
    const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `${order.id}-esims.csv`;
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <section class="card" aria-labelledby="group-esims-title">
      <h2 id="group-esims-title">
        eSIMs ({order.esims.length} of {order.quantity})
      </h2>
      <div class="toolbar">
        <button type="button" class="secondary" onClick={download} disabled={order.esims.length === 0}>
          Download CSV
        </button>
      </div>
      {order.esims.length === 0 && <p>No eSIM yet.</p>}
      <ol class="group-esims">
        {order.esims.map((esim) => (
          <li key={esim.iccid}>
            <img class="qr" src={esim.qrCode} alt={`QR code of the activation code ${esim.activationCode}`} width={160} height={160} />
            <p>
              ICCID <code>{esim.iccid}</code>
            </p>
            <p>
              <code>{esim.activationCode}</code>
            </p>
            <div class="actions">
              <CopyButton text={esim.activationCode} label="Copy activation code" />
              <a class="button secondary" href={esim.appleInstallUrl} target="_blank" rel="noopener noreferrer">
                Install on iPhone
              </a>
            </div>
          </li>
        ))}
      </ol>
      {(order.status === 'provisioned' || order.status === 'partially_provisioned') && (
        <>
          <p>
            A group order is cancelled as a whole, and only while none of its eSIMs is installed, used or topped up; what was paid (net of any refund
            already made) goes back to your wallet. Cancelling is an API call with a key that has the <code>orders:write</code> scope:
          </p>
          <ApiCall id="group-cancel-call" label="Cancel call" command={curlPost(`/partner/orders/${encodeURIComponent(order.id)}/cancel`, undefined, keyVariable)} />
        </>
      )}
      {order.status === 'cancelled' && <p>This order was cancelled as a whole; its eSIMs are kept above for the record.</p>}
    </section>
  );
}

function InstallCard({ order, esim }: { order: Order; esim: NonNullable<Order['esim']> }) {
  return (
    <section class="card" aria-labelledby="esim-title">
      <h2 id="esim-title">eSIM</h2>
      {order.kind === 'topup' && <p>This top-up added a bundle to the eSIM below: nothing new to install.</p>}
      <img class="qr" src={esim.qrCode} alt={`QR code of the activation code ${esim.activationCode}`} width={220} height={220} />
      <p>The customer scans this code, or types the activation code, on their phone. On an iPhone (iOS 17.4 or later) the install link opens the installation directly.</p>
      <p>
        <code data-testid="activation-code">{esim.activationCode}</code>
      </p>
      <div class="actions">
        <CopyButton text={esim.activationCode} label="Copy activation code" />
        <a class="button secondary" href={esim.appleInstallUrl} target="_blank" rel="noopener noreferrer">
          Install on iPhone
        </a>
      </div>
      <dl class="facts">
        <dt>ICCID</dt>
        <dd>
          <code>{esim.iccid}</code>
        </dd>
        <dt>SM-DP+ address</dt>
        <dd>
          <code>{esim.smdpAddress}</code>
        </dd>
        <dt>Matching id</dt>
        <dd>
          <code>{esim.matchingId}</code>
        </dd>
      </dl>
    </section>
  );
}

/** The eSIM's state as the supplier reported it, then top-up and cancellation (§13). */
function AfterTheSale({ api, order, iccid }: { api: Client; order: Order; iccid: string }) {
  const mode = useMode();
  const esim = useResource(() => api.get<Esim>(`/partner/me/esims/${encodeURIComponent(iccid)}`), [iccid, order.updatedAt]);
  // A test helper answers the eSIM as its notifications left it: shown at once, until the next load replaces it.
  const [helped, setHelped] = useState<Esim | undefined>();
  const refresh = () => {
    setHelped(undefined);
    esim.reload();
  };
  return (
    <Loaded resource={esim}>
      {(loaded) => {
        const e = helped ?? loaded;
        return (
        <>
          <EsimState esim={e} orderHref={(id) => href('orders', id)}>
            <div class="toolbar">
              <button type="button" class="secondary" onClick={refresh}>
                Refresh use
              </button>
              {/* Suspension has no test twin: a test eSIM is driven by the test helpers below. */}
              {mode === 'live' && <SuspensionButton api={api} esim={e} onDone={esim.reload} />}
            </div>
          </EsimState>
          {mode === 'test' && <TestHelpers api={api} esim={e} onChanged={setHelped} />}
          <TopUpPanel api={api} esim={e} order={order} />
          <CancelPanel order={order} esim={e} />
        </>
        );
      }}
    </Loaded>
  );
}

/** Suspend (a lost or stolen device) or resume the eSIM's data (§13); not offered for a cancelled or deleted eSIM. */
function SuspensionButton({ api, esim, onDone }: { api: Client; esim: Esim; onDone: () => void }) {
  const action = useAction();
  if (esim.status === 'cancelled' || esim.status === 'deleted') return null;
  const verb = esim.suspended ? 'resume' : 'suspend';
  return (
    <>
      <button
        type="button"
        class="secondary"
        disabled={action.pending}
        onClick={() =>
          void action.run({
            confirm: esim.suspended ? 'Resume data on this eSIM?' : 'Suspend data on this eSIM? The traveller loses data until you resume it.',
            action: () => api.post<Esim>(`/partner/me/esims/${encodeURIComponent(esim.iccid)}/${verb}`),
            done: () => {
              onDone();
              return esim.suspended ? 'Data resumed.' : 'Data suspended.';
            },
          })
        }
      >
        {esim.suspended ? 'Resume data' : 'Suspend data'}
      </button>
      {action.feedback}
    </>
  );
}
