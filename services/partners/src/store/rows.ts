/** Row shapes of the partners schema, as pg returns them. */
export interface PartnerRow {
  id: string;
  name: string;
  email: string;
  company: string;
  password_hash: string;
  status: 'pending' | 'approved' | 'rejected' | 'suspended';
  tier: 'standard' | 'premium' | 'enterprise';
  webhook_url: string | null;
  webhook_secret_sealed: string | null;
  rejection_reason: string | null;
  created_at: Date;
}

export interface ApiKeyRow {
  id: string;
  partner_id: string;
  prefix: string;
  secret_hash: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface AuditRow {
  id: string;
  action: string;
  target: string;
  operator: string;
  request_id: string;
  details: Record<string, unknown>;
  created_at: Date;
}
