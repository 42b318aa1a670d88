-- Up Migration
-- Contract §11 retention (docs/retention.md): the hourly job deletes applied supplier notifications past 30 days,
-- oldest first. This index holds only applied ones, so the job reads the rows it deletes and nothing else.
CREATE INDEX supplier_notifications_applied_received ON supplier_notifications (received_at) WHERE applied_at IS NOT NULL;

-- Down Migration
DROP INDEX supplier_notifications_applied_received;
