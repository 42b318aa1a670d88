import { useEffect } from 'preact/hooks';
import type { Client } from '../../shared/api.js';
import { formatDateTime } from '../../shared/format.js';
import { formatMoney } from '../../shared/money.js';
import { useTitle } from '../../shared/shell.js';
import type { Order } from '../../shared/types.js';
import { Badge, CopyButton, Loaded, useResource } from '../../shared/ui.js';

/** While provisioning runs, look again this often (bounded: the page stops when it settles or closes). */
const refreshWhileProcessingMs = 3_000;

/** One order; once provisioned, its eSIM: the QR code to scan and the activation code to copy (§7). */
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
      <Loaded resource={order}>{(o) => <OrderView order={o} />}</Loaded>
    </>
  );
}

function OrderView({ order }: { order: Order }) {
  return (
    <>
      <section class="card" aria-labelledby="order-title">
        <h2 id="order-title">
          {order.planName} <Badge value={order.status} />
        </h2>
        <dl class="facts">
          <dt>Price</dt>
          <dd>{formatMoney(order.price, order.currency)}</dd>
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
      </section>
      {order.esim && (
        <section class="card" aria-labelledby="esim-title">
          <h2 id="esim-title">eSIM</h2>
          <img class="qr" src={order.esim.qrCode} alt={`QR code of the activation code ${order.esim.activationCode}`} width={220} height={220} />
          <p>The customer scans this code, or types the activation code, on their phone.</p>
          <p>
            <code data-testid="activation-code">{order.esim.activationCode}</code>
          </p>
          <CopyButton text={order.esim.activationCode} label="Copy activation code" />
          <dl class="facts">
            <dt>ICCID</dt>
            <dd>
              <code>{order.esim.iccid}</code>
            </dd>
            <dt>SM-DP+ address</dt>
            <dd>
              <code>{order.esim.smdpAddress}</code>
            </dd>
            <dt>Matching id</dt>
            <dd>
              <code>{order.esim.matchingId}</code>
            </dd>
          </dl>
        </section>
      )}
    </>
  );
}
