-- The SQLite schema as the migrations leave it (Schema.swift): what a database at the latest
-- version holds, each table's current shape stated once. The binary embeds this file: a
-- migration that makes a table in its current shape takes the statement from here (SchemaFile),
-- as long as no later migration changes that table. SQLiteSchemaFileTests migrates an empty
-- database and holds the result equal to this file applied to another (tables, columns with
-- their declared types, keys, foreign keys, indexes). Without schema_migrations, the migrator's
-- own table.
-- Packed values (codes, decimal ids, compact event ids, record formats): docs/storage.md.

CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL UNIQUE,
    created_at_ms INTEGER NOT NULL
);

-- One row per original transaction id; owner-less until a receipt or token binds it.
-- original_transaction_id has no declared type: canonical decimal ids are kept as INTEGERs,
-- anything else as text (chains_decimal_ids).
CREATE TABLE chains (
    id INTEGER PRIMARY KEY,
    original_transaction_id NOT NULL UNIQUE,
    user_rowid INTEGER REFERENCES users(id),
    owned_since_ms INTEGER
);
CREATE INDEX chains_by_user ON chains(user_rowid);

-- Product and subscription group ids, one row per distinct name.
CREATE TABLE product_names (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

-- transaction_id and web_order_line_item_id have no declared type (transactions_decimal_ids);
-- environment is a StorageCodes code; in_app_ownership_type is OwnershipTypeText.
CREATE TABLE transactions (
    id INTEGER PRIMARY KEY,
    transaction_id NOT NULL UNIQUE,
    chain_rowid INTEGER NOT NULL REFERENCES chains(id),
    product_name_rowid INTEGER NOT NULL REFERENCES product_names(id),
    purchase_date_ms INTEGER NOT NULL,
    original_purchase_date_ms INTEGER NOT NULL,
    expires_date_ms INTEGER,
    cancellation_date_ms INTEGER,
    is_trial_period INTEGER NOT NULL,
    is_in_intro_offer_period INTEGER NOT NULL,
    is_upgraded INTEGER NOT NULL,
    group_name_rowid INTEGER REFERENCES product_names(id),
    web_order_line_item_id,
    in_app_ownership_type TEXT,
    app_account_token TEXT,
    environment INTEGER NOT NULL,
    declared_product_type TEXT,
    price_milli INTEGER,
    currency TEXT
);
CREATE INDEX transactions_by_chain ON transactions(chain_rowid);

CREATE TABLE renewal_infos (
    chain_rowid INTEGER PRIMARY KEY REFERENCES chains(id),
    auto_renew_status INTEGER NOT NULL,
    auto_renew_product_name_rowid INTEGER REFERENCES product_names(id),
    is_in_billing_retry_period INTEGER NOT NULL,
    grace_period_expires_date_ms INTEGER,
    expiration_intent INTEGER,
    signed_date_ms INTEGER NOT NULL
);

-- Clustered on (user, time, event id): its own time index. event_id has no declared type
-- (CompactEventID); an event about a stored transaction points at it (transaction_rowid) and
-- leaves the three ids, and the expiry when equal, NULL.
CREATE TABLE history_events (
    event_id NOT NULL UNIQUE,
    user_rowid INTEGER NOT NULL REFERENCES users(id),
    kind INTEGER NOT NULL,
    occurred_at_ms INTEGER NOT NULL,
    product_id TEXT,
    transaction_id TEXT,
    original_transaction_id TEXT,
    expires_at_ms INTEGER,
    environment INTEGER NOT NULL,
    source INTEGER NOT NULL,
    apple_notification_type TEXT NOT NULL,
    transaction_rowid INTEGER,
    actor TEXT,
    reason TEXT,
    PRIMARY KEY (user_rowid, occurred_at_ms, event_id)
) WITHOUT ROWID;

-- Events of chains no user owns yet, adopted into history_events when one does.
CREATE TABLE pending_events (
    event_id TEXT PRIMARY KEY,
    chain_rowid INTEGER NOT NULL REFERENCES chains(id),
    kind INTEGER NOT NULL,
    occurred_at_ms INTEGER NOT NULL,
    product_id TEXT NOT NULL,
    transaction_id TEXT NOT NULL,
    original_transaction_id TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    environment INTEGER NOT NULL,
    source INTEGER NOT NULL,
    apple_notification_type TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX pending_events_by_chain ON pending_events(chain_rowid);

-- Idempotency keys: receipts and notifications already applied.
CREATE TABLE processed_sources (
    source TEXT NOT NULL,
    source_id TEXT NOT NULL,
    user_rowid INTEGER REFERENCES users(id),
    processed_at_ms INTEGER NOT NULL,
    PRIMARY KEY (source, source_id)
) WITHOUT ROWID;

-- Keyed by transaction id: the transaction may not be stored yet.
CREATE TABLE refund_reversals (
    transaction_id TEXT PRIMARY KEY,
    reversed_at_ms INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE reconciliation_watermarks (
    environment TEXT PRIMARY KEY,
    reconciled_through_ms INTEGER NOT NULL
) WITHOUT ROWID;

-- The App Store Server API's transaction-history revision per chain.
CREATE TABLE history_revisions (
    original_transaction_id TEXT PRIMARY KEY,
    revision TEXT NOT NULL
) WITHOUT ROWID;

-- The change log. AUTOINCREMENT: a sequence is never reused, even after pruning empties it.
CREATE TABLE entitlement_changes (
    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
    user_rowid INTEGER NOT NULL REFERENCES users(id),
    occurred_at_ms INTEGER NOT NULL,
    previous_state TEXT,
    cause_event_id TEXT NOT NULL,
    product_id TEXT NOT NULL,
    original_transaction_id TEXT NOT NULL,
    state TEXT NOT NULL,
    purchased_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    grace_period_expires_at_ms INTEGER NOT NULL,
    will_auto_renew INTEGER NOT NULL,
    is_trial_period INTEGER NOT NULL,
    is_in_intro_offer_period INTEGER NOT NULL,
    product_type TEXT NOT NULL,
    subscription_group_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    latest_transaction_id TEXT NOT NULL,
    entitlement_id TEXT NOT NULL
);
CREATE INDEX entitlement_changes_by_user ON entitlement_changes(user_rowid, sequence);

-- What was last announced per user and chain, and the next instant time alone changes it.
CREATE TABLE entitlement_heads (
    user_rowid INTEGER NOT NULL REFERENCES users(id),
    next_due_ms INTEGER,
    product_id TEXT NOT NULL,
    original_transaction_id TEXT NOT NULL,
    state TEXT NOT NULL,
    purchased_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    grace_period_expires_at_ms INTEGER NOT NULL,
    will_auto_renew INTEGER NOT NULL,
    is_trial_period INTEGER NOT NULL,
    is_in_intro_offer_period INTEGER NOT NULL,
    product_type TEXT NOT NULL,
    subscription_group_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    latest_transaction_id TEXT NOT NULL,
    entitlement_id TEXT NOT NULL,
    PRIMARY KEY (user_rowid, original_transaction_id)
) WITHOUT ROWID;
CREATE INDEX entitlement_heads_by_due ON entitlement_heads(next_due_ms) WHERE next_due_ms IS NOT NULL;

-- One row: the change log id (random per database) that prefixes change ids.
CREATE TABLE change_log_identity (log_id TEXT NOT NULL);
INSERT INTO change_log_identity (log_id) VALUES (lower(hex(randomblob(8))));

-- One row: how far the writer has given users that predate the change log their heads.
CREATE TABLE entitlement_heads_baseline (
    done_through_user_rowid INTEGER NOT NULL,
    pending_through_user_rowid INTEGER NOT NULL
);
INSERT INTO entitlement_heads_baseline (done_through_user_rowid, pending_through_user_rowid) VALUES (0, 0);

-- The read model: one record per user (UserFactsRecord, format 3) keyed by UserKey, the id beside it.
CREATE TABLE user_facts (
    user_key INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL,
    facts BLOB NOT NULL
);

-- Users (users.id) whose record the store builds from the tables when it opens, a batch per
-- transaction, deleting each batch's rows as it commits their records: left by the migration
-- that followed the deletion of records in formats 1 and 2.
CREATE TABLE user_facts_rewrite (user_rowid INTEGER PRIMARY KEY);

CREATE TABLE webhook_endpoints (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    active INTEGER NOT NULL,
    fed_through INTEGER NOT NULL,
    delivered INTEGER NOT NULL DEFAULT 0,
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    dead_letters INTEGER NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT '',
    last_error_at_ms INTEGER NOT NULL DEFAULT 0,
    created_at_ms INTEGER NOT NULL
);

CREATE TABLE webhook_outbox (
    id INTEGER PRIMARY KEY,
    endpoint_rowid INTEGER NOT NULL REFERENCES webhook_endpoints(id),
    sequence INTEGER NOT NULL,
    change_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    body TEXT NOT NULL,
    enqueued_at_ms INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    first_attempt_at_ms INTEGER NOT NULL DEFAULT 0,
    next_attempt_at_ms INTEGER NOT NULL
);
CREATE INDEX webhook_outbox_by_endpoint_user ON webhook_outbox(endpoint_rowid, user_id, id);

CREATE TABLE webhook_dead_letters (
    id INTEGER PRIMARY KEY,
    endpoint_rowid INTEGER NOT NULL REFERENCES webhook_endpoints(id),
    sequence INTEGER NOT NULL,
    change_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    body TEXT NOT NULL,
    enqueued_at_ms INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    first_attempt_at_ms INTEGER NOT NULL,
    dead_at_ms INTEGER NOT NULL,
    last_error TEXT NOT NULL
);

-- The app account token issued to each user (one each, never reissued).
CREATE TABLE account_tokens (
    token TEXT PRIMARY KEY,
    user_rowid INTEGER NOT NULL UNIQUE REFERENCES users(id),
    issued_at_ms INTEGER NOT NULL
) WITHOUT ROWID;

-- Entitlements given by hand: revoking fills in the revocation columns, never deletes, so a
-- check at an earlier instant still sees the grant. Idempotency keys are unique per user.
CREATE TABLE grants (
    id INTEGER PRIMARY KEY,
    grant_id TEXT NOT NULL UNIQUE,
    user_rowid INTEGER NOT NULL REFERENCES users(id),
    entitlement_id TEXT NOT NULL,
    starts_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    actor TEXT NOT NULL,
    reason TEXT NOT NULL,
    idempotency_key TEXT,
    created_at_ms INTEGER NOT NULL,
    revoked_at_ms INTEGER,
    revoked_by TEXT,
    revocation_reason TEXT
);
CREATE INDEX grants_by_user ON grants(user_rowid);
CREATE UNIQUE INDEX grants_by_idempotency_key ON grants(user_rowid, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- The dashboard's daily rollup, kept by the writer with the facts it derives from: per
-- environment code, UTC day (days since 1970-01-01), counter and currency (empty but for
-- revenue, in milli-units). Active subscriptions are the running sum of starts minus churn.
CREATE TABLE daily_rollup (
    environment INTEGER NOT NULL,
    day INTEGER NOT NULL,
    counter TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount INTEGER NOT NULL,
    PRIMARY KEY (environment, day, counter, currency)
) WITHOUT ROWID;

-- A row here (left by the migration on a store with chains) has the store fill the rollup
-- from every stored chain when it opens, then delete the row.
CREATE TABLE daily_rollup_backfill (chains_through INTEGER NOT NULL);

-- Apple's refund questions (CONSUMPTION_REQUEST) and the answers owed, one row per transaction:
-- the request, the app's data and the answer's progress, whichever came first. state stays NULL
-- while an answer is owed (sent, rejected or expired after).
CREATE TABLE consumption_answers (
    transaction_id TEXT PRIMARY KEY,
    requested_at_ms INTEGER,
    environment INTEGER,
    request_reason TEXT,
    user_id TEXT,
    customer_consented INTEGER,
    consumption_percentage INTEGER,
    delivery_status TEXT,
    sample_content_provided INTEGER,
    data_recorded_at_ms INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER NOT NULL DEFAULT 0,
    state TEXT,
    state_reason TEXT,
    finished_at_ms INTEGER
) WITHOUT ROWID;
CREATE INDEX consumption_answers_owed ON consumption_answers(next_attempt_ms)
    WHERE state IS NULL AND requested_at_ms IS NOT NULL;
