-- Up Migration
-- What was sent, for operators answering "did the partner get the mail?".
-- Never the body or a secret: the recipient is masked, the content is named by its template.
CREATE TABLE sent_messages (
  event_id text PRIMARY KEY,
  recipient_masked text NOT NULL,
  template text NOT NULL,
  transport text NOT NULL CHECK (transport IN ('smtp', 'file')),
  sent_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sent_messages_sent_at ON sent_messages (sent_at DESC);

-- Down Migration
DROP TABLE sent_messages;
