/**
 * `npm run demo`: one partner's journey through a running platform (`npm
 * start`), a progress line per step: register, verify the e-mail, approve, fund, browse,
 * order, the eSIM's QR code in the terminal, and the webhook received and
 * verified by a local receiver. Each run makes a new partner
 * (demo-<time>@example.com) and removes nothing, so it can run again and
 * leaves what anyone made alone.
 *
 * ESIM_URL (http://localhost:8080), ADMIN_URL (http://localhost:8081),
 * ADMIN_TOKEN (else var/secrets/admin_token), DEMO_COUNTRY (FR), MAIL_DIR
 * (var/mail) or DEMO_MAIL_URL (a JSON mailbox, for tests).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import QRCode from 'qrcode';
import { createClient, type Order } from '@esim/sdk';
import { call } from '../../packages/admin-cli/src/api.js';
import { connection } from '../../packages/admin-cli/src/config.js';
import { approvalCredentials, verificationToken } from './mail.js';
import { startReceiver } from './receiver.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const publicUrl = (process.env.ESIM_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const admin = connection({ operator: 'npm run demo' });
const country = (process.env.DEMO_COUNTRY ?? 'FR').toUpperCase();
const steps = 10;
let step = 0;
const startedAt = Date.now();

const money = (minor: number, currency = 'USD') => `${(minor / 100).toFixed(2)} ${currency}`;
const done = (text: string) => process.stdout.write(`  ✓ [${++step}/${steps}] ${text}\n`);

async function pollOrder(read: () => Promise<Order>, timeoutMs: number): Promise<Order> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const order = await read();
    if (order.status !== 'processing') return order;
    if (Date.now() > deadline) throw new Error(`order ${order.id} still processing after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

type Registered = { id: string; status: string; code?: string; detail?: string };

/**
 * POST /partner/register, retried on 503 (a busy platform). A retry can find
 * the first attempt done after all (409 EMAIL_ALREADY_REGISTERED): the
 * application is then looked up among the pending ones by its e-mail.
 */
async function register(email: string, password: string, webhookUrl: string): Promise<Registered> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await fetch(`${publicUrl}/api/v1/partner/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Demo Partner', email, company: 'Demo Travel Ltd', password, webhookUrl }),
    });
    const body = (await answer.json()) as Registered;
    if (answer.status === 201) return body;
    if (answer.status === 409 && attempt > 1) {
      const pending = await call(admin, 'GET', '/partners?status=pending&limit=100');
      const found = pending.data.find((p: { email: string }) => p.email === email);
      if (found) return found;
    }
    if (answer.status !== 503 || attempt >= 4) throw new Error(`register answered ${answer.status} ${body.code}: ${body.detail}`);
    await new Promise((r) => setTimeout(r, 1_000 * attempt));
  }
}

async function demo(): Promise<void> {
  process.stdout.write(`\n  eSIM platform demo: ${publicUrl} (partner API), ${admin.url} (admin API)\n\n`);
  for (const url of [`${publicUrl}/readyz`, `${admin.url}/readyz`]) {
    const ready = await fetch(url).catch(() => null);
    if (!ready?.ok) throw new Error(`${url} is not ready${ready ? ` (${ready.status})` : ''}: is \`npm start\` running?`);
  }
  const receiver = await startReceiver();
  done(`Platform ready; webhook receiver listening on ${receiver.url}`);

  try {
    const email = `demo-${Date.now()}-${randomBytes(2).toString('hex')}@example.com`;
    const password = `demo-${randomBytes(9).toString('base64url')}`;
    const partner = await register(email, password, receiver.url);
    done(`Registered ${email} → ${partner.id} (${partner.status})`);

    const mailOptions = { mailUrl: process.env.DEMO_MAIL_URL, mailDir: process.env.MAIL_DIR ?? `${repoRoot}var/mail` };
    const token = await verificationToken(email, mailOptions);
    const verified = await fetch(`${publicUrl}/api/v1/partner/verify-email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    if (verified.status !== 200) throw new Error(`verify-email answered ${verified.status}: ${await verified.text()}`);
    done(`Followed the e-mail's link: ${email} is verified`);

    const approved = await call(admin, 'POST', `/partners/${partner.id}/approve`, { tier: 'standard' });
    done(`Operator approved ${partner.id} (${approved.status}, ${approved.tier} tier)`);

    const credentials = await approvalCredentials(email, mailOptions);
    receiver.setSecret(credentials.webhookSecret);
    const esim = createClient({ baseUrl: publicUrl, apiKey: credentials.apiKey });
    done(`Read the approval e-mail: API key ${credentials.apiKey.slice(0, 20)}…, webhook secret whsec_…`);

    const credit = await call(admin, 'POST', `/partners/${partner.id}/wallet/topups`, { amount: 10_000, reference: `DEMO-${partner.id}`, note: 'npm run demo' });
    done(`Wallet topped up: balance ${money(credit.balance)}`);

    const catalog = await esim.catalog.list({ country, limit: 5 });
    const plan = catalog.data[0];
    if (!plan) throw new Error(`the catalog has no plan for ${country} (set DEMO_COUNTRY)`);
    done(`Browsed the catalog: ${catalog.pagination.total} plans for ${country}; picked "${plan.name}" at ${money(plan.wholesalePrice, plan.currency)}`);

    const created = await esim.orders.create({ planId: plan.id, email: 'traveller@example.com', phoneNumber: '+33612345678' });
    done(`Ordered ${created.id} (${created.status}); wallet now ${money(created.walletBalance, created.currency)}`);

    const order = await pollOrder(() => esim.orders.get(created.id), 60_000);
    if (order.status !== 'provisioned' || !order.esim) throw new Error(`order ${order.id} ended ${order.status}: ${order.failureReason}`);
    const qr = await QRCode.toString(order.esim.activationCode, { type: 'terminal', small: true });
    done(`Provisioned: ICCID ${order.esim.iccid}; scan to install (${order.esim.activationCode}):\n${qr.replace(/^/gm, '      ')}`);

    /** A delivery our receiver missed (a busy machine answering after the platform's timeout) is redelivered, as an operator would. */
    const awaitWebhook = async (type: string) => {
      for (let round = 0; ; round += 1) {
        try {
          return await receiver.waitFor(type, 5_000);
        } catch (error) {
          if (round >= 12) throw error;
          const failed = await call(admin, 'GET', `/webhook-deliveries?partnerId=${partner.id}&status=failed&limit=100`);
          for (const delivery of failed.data) await call(admin, 'POST', `/webhook-deliveries/${delivery.id}/retry`);
        }
      }
    };
    const paid = await awaitWebhook('payment.paid');
    const provisioned = await awaitWebhook('provision.provisioned');
    done(`Webhooks received and verified (both signatures): ${paid.type} ${paid.id}, ${provisioned.type} ${provisioned.id}`);

    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    process.stdout.write(`\n  Done in ${seconds}s. Log in to the partner portal (${publicUrl}/portal/) as ${email} / ${password}\n\n`);
  } finally {
    await receiver.close();
  }
}

demo().catch((error: Error) => {
  process.stdout.write(`  ✗ [${step + 1}/${steps}] ${error.message}\n`);
  process.exitCode = 1;
});
