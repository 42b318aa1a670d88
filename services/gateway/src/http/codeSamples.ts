/**
 * Each operation's examples for the reference page (#19): curl always, the
 * SDK on the partner listener, esim-admin on the admin listener where a
 * command exists. They go into `x-codeSamples` (Redoc and most portals show
 * it) and, as Markdown, into the description Swagger UI renders at /docs.
 */

type Doc = Record<string, any>;
export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

const sdkCalls: Record<string, (args: Record<string, string>, body: string) => string> = {
  createOrder: (_a, body) => `const order = await esim.orders.create(${body});`,
  listOrders: () => `for await (const order of esim.orders.all({ status: 'provisioned' })) console.log(order.id);`,
  getOrder: (a) => `const order = await esim.orders.get('${a.orderId}');`,
  listPlans: () => `const { data: plans } = await esim.catalog.list({ country: 'FR' });`,
  getWallet: () => 'const wallet = await esim.wallet.get();',
  listLedgerEntries: () => `for await (const entry of esim.wallet.allLedgerEntries()) console.log(entry.type, entry.amount);`,
};

const cliCommands: Record<string, (args: Record<string, string>) => string> = {
  listPartners: () => 'esim-admin partners list --status approved',
  getPartner: (a) => `esim-admin partners show ${a.id}`,
  approvePartner: (a) => `esim-admin applications approve ${a.id} --tier premium`,
  rejectPartner: (a) => `esim-admin applications reject ${a.id} --reason "Incomplete company details"`,
  suspendPartner: (a) => `esim-admin partners suspend ${a.id}`,
  reinstatePartner: (a) => `esim-admin partners reinstate ${a.id}`,
  updatePartner: (a) => `esim-admin partners tier ${a.id} enterprise`,
  listKeys: (a) => `esim-admin keys list ${a.id}`,
  issueKey: (a) => `esim-admin keys issue ${a.id} --scopes catalog:read,orders:read`,
  revokeKey: (a) => `esim-admin keys revoke ${a.id} ${a.keyId}`,
  rotateWebhookSecret: (a) => `esim-admin webhook-secret rotate ${a.id}`,
  listAuditEntries: () => 'esim-admin audit tail -n 50 --follow',
  listPlans: () => 'esim-admin plans list --country FR',
  createPlan: () =>
    'esim-admin plans create --name "France 5 GB / 30 days" --countries FR --data-mb 5120 --validity-days 30 \\\n  --floor-price 900 --retail-price 1500 --supplier-sku SKU-FR-5GB-30D --supplier-cost 600',
  getWallet: (a) => `esim-admin wallet show ${a.id}`,
  topUpWallet: (a) => `esim-admin wallet top-up ${a.id} 10000 --reference WIRE-2026-0042`,
  adjustWallet: (a) => `esim-admin wallet adjust ${a.id} -500 --reason "Duplicate credit"`,
  listWebhookDeliveries: () => 'esim-admin deliveries list --status failed',
  retryWebhookDelivery: (a) => `esim-admin deliveries retry ${a.id}`,
};

const tokenVariables: Record<string, string> = { apiKey: 'ESIM_API_KEY', apiKeyHeader: 'ESIM_API_KEY', portalToken: 'PORTAL_TOKEN', adminToken: 'ADMIN_TOKEN' };

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

export function codeSamples(listener: 'public' | 'admin', method: string, path: string, operation: Doc): CodeSample[] {
  const args: Record<string, string> = {};
  for (const p of operation.parameters ?? []) {
    if (p.in === 'path') args[p.name] = String(p.example ?? examplePathValue(p.name, path));
  }
  const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => args[name]!);
  const base = listener === 'public' ? '$ESIM_URL' : '$ADMIN_URL';
  const scheme = Object.keys(operation.security?.[0] ?? {})[0];
  const body = operation.requestBody?.content?.['application/json']?.example;
  const curl = [
    `curl -X ${method.toUpperCase()} "${base}${url}"`,
    ...(scheme ? [`-H "Authorization: Bearer $${tokenVariables[scheme] ?? 'TOKEN'}"`] : []),
    ...(body !== undefined ? ["-H 'Content-Type: application/json'", `-d ${quote(JSON.stringify(body))}`] : []),
  ].join(' \\\n  ');
  const samples: CodeSample[] = [{ lang: 'shell', label: 'curl', source: curl }];
  const id: string = operation.operationId;
  if (listener === 'public') {
    const json = body === undefined ? '' : JSON.stringify(body, null, 2).replace(/"([A-Za-z_][A-Za-z0-9_]*)":/g, '$1:');
    const call =
      sdkCalls[id]?.(args, json) ??
      `const { data, error } = await esim.raw.${method.toUpperCase()}('${path}'${rawOptions(args, json)});`;
    samples.push({
      lang: 'typescript',
      label: '@esim/sdk',
      source: `import { createClient } from '@esim/sdk';\n\nconst esim = createClient({ baseUrl: process.env.ESIM_URL!, apiKey: process.env.ESIM_API_KEY! });\n${call}`,
    });
  } else if (cliCommands[id]) {
    samples.push({ lang: 'shell', label: 'esim-admin', source: cliCommands[id](args) });
  }
  return samples;
}

function rawOptions(args: Record<string, string>, body: string): string {
  const parts: string[] = [];
  if (Object.keys(args).length > 0) parts.push(`params: { path: { ${Object.entries(args).map(([k, v]) => `${k}: '${v}'`).join(', ')} } }`);
  if (body) parts.push(`body: ${body}`);
  return parts.length === 0 ? '' : `, { ${parts.join(', ')} }`;
}

/** An id of the right kind: `{id}` after `/plans/` is a plan's. */
function examplePathValue(name: string, path: string): string {
  if (name === 'iccid') return '8933000000000000001';
  const before = path.split(`/{${name}}`)[0]!.split('/').at(-1) ?? '';
  const kinds: Record<string, string> = { partners: 'ptn', plans: 'plan', orders: 'ord', 'webhook-deliveries': 'dlv', keys: 'key' };
  const named: Record<string, string> = { orderId: 'ord', keyId: 'key', partnerId: 'ptn', planId: 'plan' };
  return `${named[name] ?? kinds[before] ?? 'id'}_01jd4m8x2q7v5c3b9n6k0w1y2z`;
}

/** The samples as Markdown, appended to the description Swagger UI shows. */
export function samplesMarkdown(samples: CodeSample[]): string {
  return samples.map((s) => `**${s.label}**\n\n\`\`\`${s.lang === 'typescript' ? 'ts' : 'sh'}\n${s.source}\n\`\`\``).join('\n\n');
}
