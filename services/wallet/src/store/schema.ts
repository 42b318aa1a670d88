/** The Postgres schema the wallet owns; its tables and its outbox live here. */
export const walletSchema = 'wallet';
