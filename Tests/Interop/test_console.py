"""The web console in a real browser: Playwright for Python driving Debian's chromium
(/usr/bin/chromium, headless; Playwright downloads no browser) against entitlementd-testing with
--admin-listen. Sign-in, search, the customer page, a grant made in the browser and then seen
active over gRPC, a revocation, a viewer refused (no buttons, a forged POST 403), the XSS case
and the CSRF case. Skipped, saying why, only where chromium or playwright is missing.

With CONSOLE_SCREENSHOTS_DIR set, test_screenshots saves the pages there
(Scripts/console-screenshots writes docs/console/*.png that way)."""
import json
import os
import re
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from apple_pki import PKI, Signer, transaction
from conftest import admin_address
from test_entitlements import tx
from webhook_receiver import Receiver

CHROMIUM = "/usr/bin/chromium"
if not os.access(CHROMIUM, os.X_OK):
    pytest.skip(f"no chromium at {CHROMIUM} (Debian's chromium package; Scripts/test installs it with apt-get)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
expect = sync_api.expect
# The console is one replica's admin port: behind haproxy a gRPC write may land on another
# replica, whose facts reach this one's cache a moment later; the pages would race it.
pytestmark = pytest.mark.single_process("the console reads one replica's cache; writes through haproxy may "
                                        "land on another")

DAY = 86_400_000
SUPPORT = "support-token-7d41"
VIEWER = "viewer-token-0b9e"
RPC = "rpc-token-5a2c"
XSS = "<img src=x onerror=alert(1)>"


def now_ms():
    return int(time.time() * 1000)


@pytest.fixture(scope="module")
def chromium():
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def tokens(tmp_path):
    path = tmp_path / "tokens"
    path.write_text(f"{SUPPORT} name=alice roles=support\n{VIEWER} name=vera roles=viewer\n"
                    f"{RPC} name=backend roles=rpc\n")
    os.chmod(path, 0o600)
    return path


@pytest.fixture
def catalog(tmp_path):
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps({"products": [
        {"product_id": "pro.monthly", "type": "auto_renewable", "entitlement_id": "pro"},
    ]}))
    return path


@pytest.fixture
def s(server, tokens, catalog):
    return server("--admin-listen", "127.0.0.1:0", "--auth-tokens-file", tokens, "--catalog", catalog)


@pytest.fixture
def base(s):
    return f"http://{admin_address(s)}/console/"


def md(token=RPC):
    return [("authorization", f"Bearer {token}")]


def seed_subscriber(pb, s, user, chain="7000000001"):
    """A monthly subscription bought 40 days ago with a trial, renewed once, active now."""
    start = now_ms() - 40 * DAY
    facts = {"transactions": [
        tx(chain, chain, "pro.monthly", start, start + 10 * DAY, is_trial_period="true"),
        tx(str(int(chain) + 1), chain, "pro.monthly", start + 10 * DAY, start + 70 * DAY),
    ], "renewal_infos": []}
    pb.testing_grpc.TestingStub(s.channel()).Seed(
        pb.testing.SeedRequest(user_id=user, facts_json=json.dumps(facts)), timeout=10, metadata=md())


def check(pb, s, user, entitlement="pro"):
    stub = pb.ent_grpc.EntitlementServiceStub(s.channel())
    return stub.CheckEntitlement(pb.ent.CheckEntitlementRequest(user_id=user, entitlement_id=entitlement),
                                 timeout=10, metadata=md())


def sign_in(chromium, base, token):
    page = chromium.new_page()
    page.goto(base)
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    return page


def search(page, term):
    page.get_by_label("Search", exact=True).fill(term)
    page.get_by_role("button", name="Search", exact=True).click()


def csrf_token(page):
    return page.locator("input[name=csrf]").first.get_attribute("value")


def test_sign_in_search_and_the_customer_page(pb, s, base, chromium):
    seed_subscriber(pb, s, "u-console", chain="7000000001")
    token = pb.ent_grpc.EntitlementServiceStub(s.channel()).GetAppAccountToken(
        pb.ent.GetAppAccountTokenRequest(user_id="u-console"), timeout=10, metadata=md()).app_account_token

    page = chromium.new_page()
    response = page.goto(base)
    assert response.status == 200
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.get_by_label("Token").fill("not-a-token")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("not accepted")
    page.close()

    page = sign_in(chromium, base, SUPPORT)
    cookie, = [c for c in page.context.cookies() if c["name"] == "console_session"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and not cookie["secure"]
    assert now_ms() / 1000 < cookie["expires"] < now_ms() / 1000 + 9 * 3600

    # Each way in lands on the customer's page: user id, original and later transaction id, token.
    for term in ["u-console", "7000000001", "7000000002", token.upper()]:
        page.goto(base)
        search(page, term)
        expect(page.get_by_role("heading", level=1)).to_have_text("u-console")

    entitlements = page.get_by_role("table", name="Entitlements")
    row = entitlements.get_by_role("row").filter(has_text="pro.monthly")
    expect(row).to_contain_text("active")
    expect(row).to_contain_text("App Store (")
    expect(row.locator("td.why")).to_contain_text("the period of transaction 7000000002 runs until")
    history = page.get_by_role("table", name="History")
    expect(history.get_by_role("row")).to_have_count(3)  # header, renewal, purchase: newest first
    expect(history.get_by_role("row").nth(1)).to_contain_text("renewal")
    expect(history.get_by_role("row").nth(2)).to_contain_text("purchase")
    expect(page.get_by_text("App account token:")).to_contain_text(token)

    page.goto(base)
    search(page, "nobody-has-this-id")
    expect(page.get_by_text("No customer matches")).to_be_visible()

    # Sign out ends the session: the console asks for a token again.
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.goto(base + "customer?user=u-console")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()


def test_a_grant_made_in_the_browser_is_active_over_grpc_and_a_revocation_ends_it(pb, s, base, chromium):
    assert not check(pb, s, "u-granted").active
    page = sign_in(chromium, base, SUPPORT)
    search(page, "u-granted")
    page.get_by_role("link", name=re.compile("Open .* as a user id")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("u-granted")
    page.get_by_label("Entitlement", exact=True).fill("pro")
    page.get_by_label("Expires").fill("7d")
    page.get_by_label("Reason", exact=True).fill("goodwill after the outage")
    page.get_by_role("button", name="Grant", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("Granted")

    answer = check(pb, s, "u-granted")
    assert answer.active
    granted, = answer.entitlements
    assert granted.entitlement_id == "pro" and granted.grant_id
    row = page.get_by_role("table", name="Entitlements").get_by_role("row").filter(has_text=granted.grant_id)
    expect(row).to_contain_text("active")
    history = page.get_by_role("table", name="History")
    expect(history).to_contain_text("alice")
    expect(history).to_contain_text("goodwill after the outage")

    row.get_by_label("Revoke reason").fill("granted to the wrong account")
    row.get_by_role("button", name="Revoke").click()
    expect(page.get_by_role("status")).to_contain_text("Revoked")
    assert not check(pb, s, "u-granted").active
    expect(page.get_by_role("table", name="Entitlements")).to_contain_text("revoked")
    expect(page.get_by_role("table", name="History")).to_contain_text("granted to the wrong account")

    # Refresh without the App Store Server API says what is missing instead of failing silently.
    page.get_by_label("Refresh reason").fill("customer reports a missing renewal")
    page.get_by_role("button", name="Refresh from Apple").click()
    expect(page.get_by_role("alert")).to_contain_text("App Store Server API is not configured")

    # The audit log names the actor of each action and never the token.
    log = s.stderr()
    for line in ["console sign-in", "entitlement granted", "grant revoked", "entitlements refresh requested"]:
        assert any(line in entry and "alice" in entry for entry in log.splitlines()), line
    assert SUPPORT not in log


def test_a_viewer_sees_no_actions_and_a_forged_post_is_refused(pb, s, base, chromium):
    seed_subscriber(pb, s, "u-viewed", chain="7000000101")
    page = sign_in(chromium, base, VIEWER)
    search(page, "u-viewed")
    expect(page.get_by_role("heading", level=1)).to_have_text("u-viewed")
    expect(page.get_by_role("table", name="Entitlements")).to_contain_text("pro.monthly")
    for name in ["Grant", "Revoke", "Refresh from Apple"]:
        expect(page.get_by_role("button", name=name, exact=True)).to_have_count(0)
    # The viewer holds a valid session and CSRF token (the sign-out form's): still refused.
    forged = page.context.request.post(base + "customer/grant", max_redirects=0, form={
        "user": "u-viewed", "entitlement": "pro", "expires": "7d", "reason": "forged", "csrf": csrf_token(page)})
    assert forged.status == 403
    assert "viewer" in forged.text()
    assert [e.grant_id for e in check(pb, s, "u-viewed").entitlements if e.grant_id] == []


def test_a_user_id_holding_markup_shows_as_text(pb, s, base, chromium):
    seed_subscriber(pb, s, XSS, chain="7000000201")
    page = sign_in(chromium, base, SUPPORT)
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    search(page, XSS)
    expect(page.get_by_role("heading", level=1)).to_have_text(XSS)
    assert page.locator("main img").count() == 0
    assert dialogs == []
    # The grant form carries it back intact, as text.
    page.get_by_label("Entitlement", exact=True).fill("pro")
    page.get_by_label("Expires").fill("1d")
    page.get_by_label("Reason", exact=True).fill("<b>bold?</b>")
    page.get_by_role("button", name="Grant", exact=True).click()
    expect(page.get_by_role("table", name="History")).to_contain_text("<b>bold?</b>")
    assert page.locator("main b").count() == 0 and dialogs == []
    assert check(pb, s, XSS).active


def test_a_post_without_the_sessions_csrf_token_is_refused(pb, s, base, chromium):
    page = sign_in(chromium, base, SUPPORT)
    form = {"user": "u-csrf", "entitlement": "pro", "expires": "7d", "reason": "csrf test"}
    for csrf in [None, "", "0" * 64]:
        sent = dict(form) if csrf is None else dict(form, csrf=csrf)
        refused = page.context.request.post(base + "customer/grant", form=sent, max_redirects=0)
        assert refused.status == 403, csrf
    # Another site's page posting with the browser's cookie: SameSite=Strict withholds it, and the
    # Origin header alone refuses it.
    foreign = page.context.request.post(base + "customer/grant", form=dict(form, csrf=csrf_token(page)),
                                        headers={"origin": "http://evil.example"}, max_redirects=0)
    assert foreign.status == 403
    assert not check(pb, s, "u-csrf").active
    accepted = page.context.request.post(base + "customer/grant", form=dict(form, csrf=csrf_token(page)),
                                         max_redirects=0)
    assert accepted.status == 303
    assert check(pb, s, "u-csrf").active


def test_every_page_forbids_script_and_framing_and_the_service_port_has_no_console(s, base, chromium):
    page = sign_in(chromium, base, VIEWER)
    for path in ["", "search?q=x", "customer?user=u", "dashboard", "console.css"]:
        response = page.goto(base + path)
        headers = response.headers
        assert "script-src" not in headers["content-security-policy"]  # default-src 'none': no script
        assert "default-src 'none'" in headers["content-security-policy"]
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert "unsafe-inline" not in headers["content-security-policy"]
        assert headers["x-frame-options"] == "DENY"
    page.goto(base)
    expect(page.get_by_role("link", name="Dashboard")).to_be_visible()
    # The stylesheet applied under that policy: the header's background is the stylesheet's.
    assert page.locator("header").evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(245, 247, 250)"
    for path in ["/console/", "/console"]:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://{s.address}{path}", timeout=10)
        assert refused.value.code == 404
        assert "admin port" in refused.value.read().decode()


def test_history_is_paged_newest_first(pb, s, base, chromium):
    start = now_ms() - 40 * DAY
    renewals = [tx(str(7000000500 + i), "7000000500", "pro.monthly", start + i * DAY, start + (i + 1) * DAY)
                for i in range(30)]
    pb.testing_grpc.TestingStub(s.channel()).Seed(pb.testing.SeedRequest(
        user_id="u-long", facts_json=json.dumps({"transactions": renewals, "renewal_infos": []})),
        timeout=10, metadata=md())
    page = sign_in(chromium, base, VIEWER)
    page.goto(base + "customer?user=u-long")
    rows = page.get_by_role("table", name="History").get_by_role("row")
    expect(rows).to_have_count(26)  # the header and 25 events
    expect(rows.nth(1)).to_contain_text("7000000529")
    expect(page.get_by_role("link", name="Newest events")).to_have_count(0)
    page.get_by_role("link", name="Older events").click()
    rows = page.get_by_role("table", name="History").get_by_role("row")
    expect(rows.nth(1)).to_contain_text("7000000504")
    expect(rows.last).to_contain_text("7000000500")
    expect(page.get_by_role("link", name="Older events")).to_have_count(0)
    page.get_by_role("link", name="Newest events").click()
    expect(page.get_by_role("table", name="History").get_by_role("row").nth(1)).to_contain_text("7000000529")


def test_the_customer_page_shows_lost_chains_and_webhook_deliveries(pb, server, tokens, catalog, chromium):
    receiver = Receiver(b"whsec-console-1f0a")
    try:
        # Two endpoints: one that answers, one where nothing listens (its attempts fail).
        s = server("--admin-listen", "127.0.0.1:0", "--auth-tokens-file", tokens, "--catalog", catalog,
                   "--webhook-url", receiver.url, "--webhook-url", "http://127.0.0.1:9/hook",
                   "--webhook-secret", "whsec-console-1f0a")
        base = f"http://{admin_address(s)}/console/"
        seed_subscriber(pb, s, "u-first", chain="7000000401")
        seed_subscriber(pb, s, "u-second", chain="7000000401")  # the same chain, bought again by another account
        page = sign_in(chromium, base, VIEWER)
        page.goto(base + "customer?user=u-first")
        lost = page.get_by_role("table", name="Chains lost and claims by others")
        expect(lost.get_by_role("row").filter(has_text="7000000401")).to_contain_text("lost to")
        lost.get_by_role("link", name="u-second").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("u-second")

        deadline = time.monotonic() + 60
        while True:
            text = page.get_by_role("table", name="Webhook deliveries").inner_text()
            if "sent (delivered" in text and "retrying: " in text:
                break
            assert time.monotonic() < deadline, f"deliveries never showed sent and retrying:\n{text}"
            time.sleep(0.5)
            page.reload()
        rows = page.get_by_role("table", name="Webhook deliveries").get_by_role("row")
        expect(rows.filter(has_text="http://127.0.0.1:9/hook").first).to_contain_text("failed attempt")
        expect(rows.filter(has_text=receiver.url).first).to_contain_text("sent (delivered")
    finally:
        receiver.stop()


def test_refresh_from_apple_in_the_browser_is_in_history_with_who_and_why(pb, server, tokens, catalog, chromium,
                                                                          tmp_path):
    """Against the scripted App Store Server API: the refresh asks Apple, and the customer's
    history shows who asked and why, on the chain asked about."""
    if not shutil.which("openssl"):
        pytest.skip("the openssl CLI is needed to generate the test PKI")
    from fake_server_api import FakeServerAPI
    from fast_signer import FastSigner
    from test_server_api import subscription
    pytest.importorskip("cryptography", reason="Scripts/test installs cryptography into the venv")
    pki = PKI(tmp_path / "pki", "Test")
    (tmp_path / "api").mkdir()
    api = FakeServerAPI(tmp_path / "api")
    try:
        signed, status = subscription(FastSigner(pki), 71_000, 2)
        api.add_customer(["71000", "71001"], signed, statuses=[status])
        s = server(*api.flags(), "--apple-root-ca", pki.root_pem_path, "--admin-listen", "127.0.0.1:0",
                   "--auth-tokens-file", tokens, "--catalog", catalog)
        pb.ent_grpc.EntitlementServiceStub(s.channel()).SubmitReceipt(
            pb.ent.SubmitReceiptRequest(user_id="refresh-me", transaction_id="71001"), timeout=30, metadata=md())
        api.calls.clear()
        page = sign_in(chromium, f"http://{admin_address(s)}/console/", SUPPORT)
        search(page, "refresh-me")
        page.get_by_label("Refresh reason").fill("customer says a renewal is missing")
        page.get_by_role("button", name="Refresh from Apple").click()
        expect(page.get_by_role("status")).to_be_visible()
        assert api.calls_to("history"), "Apple was asked"
        events = pb.ent_grpc.EntitlementServiceStub(s.channel()).ListHistory(
            pb.ent.ListHistoryRequest(user_id="refresh-me"), timeout=10, metadata=md()).events
        refreshed = [e for e in events if e.type == 19]
        assert len(refreshed) == 1 and refreshed[0].actor == "alice", events
        assert refreshed[0].reason == "customer says a renewal is missing"
        history = page.get_by_role("table", name="History")
        row = history.get_by_role("row").filter(has_text="customer says a renewal is missing")
        expect(row).to_have_count(1)
        expect(row).to_contain_text("alice")
        expect(row).to_contain_text("operator")
        expect(row).to_contain_text("71000")
    finally:
        api.close()


def test_an_apple_order_id_finds_its_customer_through_apple(pb, server, tokens, catalog, chromium, tmp_path):
    """With the Server API configured, a search nothing here matches that looks like an order id
    asks Apple's Look Up Order ID and opens the customer who owns the order's purchase; a term
    that cannot be an order id never reaches Apple."""
    if not shutil.which("openssl"):
        pytest.skip("the openssl CLI is needed to generate the test PKI")
    from fake_server_api import FakeServerAPI
    from fast_signer import FastSigner
    from test_server_api import subscription
    pytest.importorskip("cryptography", reason="Scripts/test installs cryptography into the venv")
    pki = PKI(tmp_path / "pki", "Test")
    (tmp_path / "api").mkdir()
    api = FakeServerAPI(tmp_path / "api")
    try:
        signed, status = subscription(FastSigner(pki), 72_000, 2)
        api.add_customer(["72000", "72001"], signed, statuses=[status])
        api.orders["MKORDER7201"] = signed[-1:]
        s = server(*api.flags(), "--apple-root-ca", pki.root_pem_path, "--admin-listen", "127.0.0.1:0",
                   "--auth-tokens-file", tokens, "--catalog", catalog)
        pb.ent_grpc.EntitlementServiceStub(s.channel()).SubmitReceipt(
            pb.ent.SubmitReceiptRequest(user_id="order-owner", transaction_id="72001"), timeout=30, metadata=md())
        api.calls.clear()
        page = sign_in(chromium, f"http://{admin_address(s)}/console/", VIEWER)
        search(page, "nothing-like-an-order")
        assert not api.calls_to("lookup"), "a term that cannot be an order id is not sent to Apple"
        search(page, "MKORDER7201")
        expect(page.get_by_role("heading", level=1)).to_have_text("order-owner")
        assert [c["path"] for c in api.calls_to("lookup")] == ["inApps/v1/lookup/MKORDER7201"]
    finally:
        api.close()


def utc_day(ms):
    return time.strftime("%Y-%m-%d", time.gmtime(ms / 1000))


def test_the_dashboard_charts_the_rollup_and_downloads_each_chart_as_csv(pb, server, tokens, catalog, chromium,
                                                                         tmp_path):
    """Three customers took a trial 20 days ago and paid 9.99 USD when it ended 13 days ago
    (StoreKit 2 submissions, which carry prices): the charts and their CSVs say so."""
    if not shutil.which("openssl"):
        pytest.skip("the openssl CLI is needed to generate the test PKI")
    signer = Signer(PKI(tmp_path / "pki", "Test"))
    s = server("--admin-listen", "127.0.0.1:0", "--auth-tokens-file", tokens, "--catalog", catalog,
               "--apple-root-ca", signer.pki.root_pem_path)
    stub = pb.ent_grpc.EntitlementServiceStub(s.channel())
    now = now_ms()
    trial_at, paid_at = now - 20 * DAY, now - 13 * DAY
    for n in range(3):
        chain = str(7_100_000_000 + n * 10)
        trial = transaction(chain, chain, purchase=trial_at, expires=paid_at, signed=trial_at + 1000,
                            product_id="pro.monthly", environment="Production", offerType=1,
                            offerDiscountType="FREE_TRIAL", price=0, currency="USD")
        paid = transaction(str(int(chain) + 1), chain, purchase=paid_at, expires=now + 17 * DAY,
                           signed=paid_at + 1000, product_id="pro.monthly", environment="Production",
                           price=9990, currency="USD")
        for payload in (trial, paid):
            stub.SubmitReceipt(pb.ent.SubmitReceiptRequest(user_id=f"dash-{n}",
                                                           signed_transaction=signer.sign(payload)),
                               timeout=30, metadata=md())

    page = sign_in(chromium, f"http://{admin_address(s)}/console/", VIEWER)
    page.get_by_role("link", name="Dashboard").click()
    for title in ["Active subscriptions", "New trials", "Trial conversions", "Renewals", "Refunds", "Churn",
                  "Revenue (USD)"]:
        expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible()
    expect(page.get_by_role("img", name=re.compile("^New trials"))).to_have_count(1)
    described = page.locator("svg desc").all_text_contents()
    assert any(d.startswith("New trials") and f"highest 3 on {utc_day(trial_at)}" in d for d in described), described
    assert any(d.startswith("Trial conversions") and f"highest 3 on {utc_day(paid_at)}" in d for d in described)
    assert any(d.startswith("Active subscriptions") and "3 on the last day" in d for d in described), described

    def download(name):
        response = page.request.get(f"http://{admin_address(s)}/console/dashboard/{name}")
        return response.status, response.headers.get("content-type", ""), response.text()

    status, kind, body = download("new-trials.csv")
    assert status == 200 and kind.startswith("text/csv"), (status, kind)
    rows = body.strip().splitlines()
    assert rows[0] == "date,new_trials" and len(rows) == 91, rows[:3]
    assert f"{utc_day(trial_at)},3" in rows and rows[-1].endswith(",0")
    status, _, body = download("revenue-usd.csv")
    assert status == 200 and f"{utc_day(paid_at)},29.970" in body.splitlines(), body[:300]
    assert download("no-such-chart.csv")[0] == 404
    # The link on the page is the download.
    link = page.get_by_role("link", name="Download CSV").first.get_attribute("href")
    assert link.startswith("/console/dashboard/") and link.endswith(".csv")
    page.goto(f"http://{admin_address(s)}/console/dashboard?environment=sandbox")
    assert not any("highest 3" in d for d in page.locator("svg desc").all_text_contents()), "production only"


@pytest.mark.skipif(not os.environ.get("CONSOLE_SCREENSHOTS_DIR"),
                    reason="saves docs/console/*.png only when CONSOLE_SCREENSHOTS_DIR is set "
                           "(Scripts/console-screenshots)")
def test_screenshots(pb, s, base, chromium):
    out = Path(os.environ["CONSOLE_SCREENSHOTS_DIR"])
    out.mkdir(parents=True, exist_ok=True)
    seed_subscriber(pb, s, "u-42", chain="7000000301")
    pb.ent_grpc.EntitlementServiceStub(s.channel()).GetAppAccountToken(
        pb.ent.GetAppAccountTokenRequest(user_id="u-42"), timeout=10, metadata=md())
    pb.ent_grpc.EntitlementServiceStub(s.channel()).GrantEntitlement(pb.ent.GrantEntitlementRequest(
        user_id="u-42", entitlement_id="pro.extras", expires_at_ms=now_ms() + 14 * DAY,
        reason="apology for the billing outage"), timeout=10, metadata=md(SUPPORT))
    page = chromium.new_page(viewport={"width": 1600, "height": 900})
    page.goto(base)
    page.screenshot(path=out / "sign-in.png")
    page.close()
    page = sign_in(chromium, base, SUPPORT)
    page.set_viewport_size({"width": 1600, "height": 900})
    page.screenshot(path=out / "search.png")
    search(page, "7000000302")
    expect(page.get_by_role("heading", level=1)).to_have_text("u-42")
    page.screenshot(path=out / "customer.png", full_page=True)
    viewer = sign_in(chromium, base, VIEWER)
    viewer.set_viewport_size({"width": 1600, "height": 900})
    viewer.goto(base + "customer?user=u-42")
    viewer.screenshot(path=out / "customer-viewer.png", full_page=True)
    for n in range(12):  # a few more customers, so the charts have bars to show
        seed_subscriber(pb, s, f"chart-{n}", chain=str(7000000400 + n * 10))
    viewer.goto(base + "dashboard")
    viewer.screenshot(path=out / "dashboard.png", full_page=True)
