"""Writes the pgbench scripts of Benchmarks/pg-receipt-inserts.sh into DIR: what the writer sends
for a receipt's new chain of K transactions and their history events, one iteration per chain.

  statements    the transactions' list insert, then one insert per event looking its
                transaction up (HistoryEvent.insertHistorySQL)
  joined        one statement: the list insert as a WITH, the events pointing at the rows it
                returns (tried in the writer and not kept: docs/storage.md, PostgreSQL)
  transactions  the list insert alone: what the other two share, to subtract

Each iteration: BEGIN, the chain's insert, the inserts pipelined, COMMIT. Ids from pgbench's
random :n; lists built in SQL from it (the writer binds each list as one array's text).
"""
import pathlib
import sys

K = int(sys.argv[2]) if len(sys.argv) > 2 else 7
N = "CAST(:n AS text)"
KS = range(1, K + 1)


def array(elements, sql_type):
    return f"CAST(ARRAY[{', '.join(elements)}] AS {sql_type}[])"


def transaction_id(k):
    return f"'t' || {N} || '-{k}'"


TRANSACTION_COLUMNS = [
    ("transaction_id", "TEXT", transaction_id), ("chain_rowid", "BIGINT", lambda k: "CAST(:n AS bigint)"),
    ("product_name_rowid", "BIGINT", lambda k: "1"), ("purchase_date_ms", "BIGINT", lambda k: str(1000 + k)),
    ("original_purchase_date_ms", "BIGINT", lambda k: "1000"),
    ("expires_date_ms", "BIGINT", lambda k: str(2000 + k)),
    ("cancellation_date_ms", "BIGINT", lambda k: "NULL"), ("is_trial_period", "BIGINT", lambda k: "0"),
    ("is_in_intro_offer_period", "BIGINT", lambda k: "0"), ("is_upgraded", "BIGINT", lambda k: "0"),
    ("group_name_rowid", "BIGINT", lambda k: "2"),
    ("web_order_line_item_id", "TEXT", lambda k: f"'wo' || {N} || '-{k}'"),
    ("in_app_ownership_type", "TEXT", lambda k: "'PURCHASED'"), ("app_account_token", "TEXT", lambda k: "NULL"),
    ("environment", "BIGINT", lambda k: "1"),
    ("declared_product_type", "TEXT", lambda k: "'Auto-Renewable Subscription'"),
]
EVENT_COLUMNS = [
    ("event_id", "TEXT", lambda k: f"'renewal:' || {transaction_id(k)}"), ("user_rowid", "BIGINT", lambda k: "1"),
    ("kind", "BIGINT", lambda k: "2"), ("occurred_at_ms", "BIGINT", lambda k: str(1000 + k)),
    ("expires_at_ms", "BIGINT", lambda k: str(2000 + k)), ("environment", "BIGINT", lambda k: "1"),
    ("source", "BIGINT", lambda k: "1"), ("apple_notification_type", "TEXT", lambda k: "''"),
    ("transaction_id", "TEXT", transaction_id),
]
HISTORY = ("INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, product_id, transaction_id, "
           "original_transaction_id, expires_at_ms, environment, source, apple_notification_type, transaction_rowid)")


def lists(columns):
    return ", ".join(array([value(k) for k in KS], sql_type) for _, sql_type, value in columns)


INSERT_TRANSACTIONS = (f"INSERT INTO transactions ({', '.join(name for name, _, _ in TRANSACTION_COLUMNS)}) "
                       f"SELECT * FROM unnest({lists(TRANSACTION_COLUMNS)})")


def event_looking_up(k):
    tid, chain = transaction_id(k), f"'c' || {N}"
    return (f"{HISTORY} SELECT 'renewal:' || {tid}, 1, 2, {1000 + k}, "
            f"CASE WHEN p.id IS NULL THEN 'com.example.monthly' END, CASE WHEN p.id IS NULL THEN {tid} END, "
            f"CASE WHEN p.id IS NULL THEN {chain} END, {2000 + k}, 1, 1, '', p.id "
            f"FROM (SELECT 1 AS one) AS o LEFT JOIN (SELECT t.id FROM transactions t JOIN chains c "
            f"ON c.id = t.chain_rowid WHERE t.transaction_id = {tid} AND t.product_name_rowid = "
            f"(SELECT pn.id FROM product_names pn WHERE pn.name = 'com.example.monthly') "
            f"AND c.original_transaction_id = {chain}) AS p ON true WHERE true ON CONFLICT (event_id) DO NOTHING;")


JOINED = (f"WITH t AS ({INSERT_TRANSACTIONS} RETURNING id, transaction_id) {HISTORY} "
          "SELECT e.event_id, e.user_rowid, e.kind, e.occurred_at_ms, NULL, NULL, NULL, e.expires_at_ms, "
          "e.environment, e.source, e.apple_notification_type, t.id "
          f"FROM unnest({lists(EVENT_COLUMNS)}) WITH ORDINALITY AS "
          f"e({', '.join(name for name, _, _ in EVENT_COLUMNS)}, position) "
          "JOIN t ON t.transaction_id = e.transaction_id ORDER BY e.position ON CONFLICT (event_id) DO NOTHING;")

HEAD = f"""\\set n random(1, 1000000000000)
BEGIN;
INSERT INTO chains (id, original_transaction_id) VALUES (CAST(:n AS bigint), 'c' || {N});
\\startpipeline
"""
TAIL = "\\endpipeline\nCOMMIT;\n"

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
events = "\n".join(map(event_looking_up, KS))
(out / "statements.sql").write_text(HEAD + INSERT_TRANSACTIONS + ";\n" + events + "\n" + TAIL)
(out / "joined.sql").write_text(HEAD + JOINED + "\n" + TAIL)
(out / "transactions.sql").write_text(HEAD + INSERT_TRANSACTIONS + ";\n" + TAIL)
