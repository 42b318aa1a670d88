-- Up Migration
-- #25 meets #27: the plan's SM-DP+ profile type (operator data, §8) is kept on the order when it is
-- placed, so provisioning's DownloadOrder asks for the plan's profile even if the plan changes later.
ALTER TABLE orders ADD COLUMN profile_type text CHECK (profile_type IS NULL OR char_length(profile_type) BETWEEN 1 AND 256);

-- Down Migration
ALTER TABLE orders DROP COLUMN profile_type;
