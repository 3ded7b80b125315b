"""The back-office page as an operator uses it, in headless Chromium."""

import re

from playwright.sync_api import expect

from conftest import OPERATOR_TOKEN


def sign_in(page):
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/login$"))
    page.get_by_label("Operator token").fill(OPERATOR_TOKEN)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Companies")).to_be_visible()


def test_a_wrong_token_is_refused_and_the_right_one_opens_the_companies(page):
    page.goto("/login")
    page.get_by_label("Operator token").fill("not the token")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("not the operator token")
    sign_in(page)
    expect(page.get_by_role("link", name="demo")).to_be_visible()
    assert OPERATOR_TOKEN not in page.url


def test_a_new_key_shows_its_secret_once_and_disabled_it_is_refused(page, server):
    sign_in(page)
    page.get_by_role("link", name="demo").click()
    page.get_by_label("Description").fill("Till 7, browser test")
    page.get_by_label("Enabled").check()
    page.get_by_role("button", name="Create the key").click()

    expect(page.get_by_role("heading", name="Key created")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("shown on this page only, once")
    key = page.locator("#key").inner_text().strip()
    secret = page.locator("#secret").inner_text().strip()
    assert key.startswith("lk_") and secret.startswith("ls_")
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == secret
    assert server.check(key, secret) == 200

    page.get_by_role("link", name="Back to demo").click()
    row = page.locator(f"tr[data-key='{key}']")
    expect(row).to_contain_text("Till 7, browser test")
    expect(row.locator(".state")).to_have_text("enabled")
    assert secret not in page.content(), "the secret is shown once only"

    row.get_by_role("button", name="Disable").click()
    expect(page.get_by_role("status")).to_contain_text("disabled")
    expect(page.locator(f"tr[data-key='{key}'] .state")).to_have_text("disabled")
    assert server.check(key, secret) == 403

    page.goto("/")
    page.go_back()
    page.reload()
    assert secret not in page.content()


def test_system_keys_cannot_be_switched_from_the_page(page):
    sign_in(page)
    page.get_by_role("link", name="demo").click()
    system = page.locator("tr", has_text="system")
    expect(system).to_contain_text("Not editable: a system key")
    expect(system.get_by_role("button")).to_have_count(0)


def test_a_broken_campaign_file_shows_its_error_with_its_line(page, server):
    sign_in(page)
    page.goto("/companies/demo/campaigns")
    expect(page.locator("#files h2")).to_contain_text("in force")

    broken = server.campaigns / "demo" / "campaigns" / "broken-by-browser-test.yaml"
    broken.write_text(
        "id: 990\nkind: points\nname: Broken\non: cart\nwhen: cart.total >\npoints: { fixed: 1 }\n"
    )
    # Edits apply within a poll (half a second): reload until it shows.
    for _ in range(40):
        page.reload()
        if "held back" in page.locator("#files h2").inner_text():
            break
        page.wait_for_timeout(250)
    expect(page.locator("#files h2")).to_contain_text("held back")
    expect(page.locator(".problems")).to_contain_text("broken-by-browser-test.yaml:5")
    expect(page.locator("#campaigns")).to_contain_text("Points per euro")


def test_a_company_is_created_and_its_settings_changed(page):
    sign_in(page)
    page.get_by_label("Slug").fill("acme")
    page.get_by_label("Environment").select_option("production")
    page.get_by_role("button", name="Create the Company").click()
    expect(page.get_by_role("status")).to_contain_text("Company acme created")
    expect(page.get_by_role("heading", name="acme")).to_be_visible()

    # The form stops 0 itself (min="1"); the server refuses what it lets by.
    page.get_by_label("Tier 1, critical").fill("200000")
    page.get_by_role("button", name="Save the rate limits").click()
    expect(page.get_by_role("status")).to_contain_text("must be between 1 and 100000")
    page.get_by_label("Tier 1, critical").fill("90")
    page.get_by_role("button", name="Save the rate limits").click()
    expect(page.get_by_role("status")).to_contain_text("Rate limits changed")
    expect(page.get_by_label("Tier 1, critical")).to_have_value("90")


def test_a_customer_is_found_by_email_with_their_cart(page, server):
    customer = server.call("POST", "/customers", {"email": "ines@example.com", "code": "B-1"})
    server.call(
        "POST",
        "/carts/realtime",
        {
            "customer_id": customer["id"],
            "code": "BROWSER-CART-1",
            "date": "2026-11-23T10:00:00Z",
            "lines": [{"product_code": "A", "quantity": 1, "price": 9.5}],
        },
    )
    sign_in(page)
    page.goto("/companies/demo/customers")
    page.get_by_label("Look up by").select_option("email")
    page.get_by_label("Value").fill("ines@example.com")
    page.get_by_role("button", name="Look up").click()
    expect(page.locator("#profile")).to_contain_text(customer["id"])
    expect(page.get_by_role("cell", name="BROWSER-CART-1").first).to_be_visible()
    assert "ines@example.com" not in page.url, "the look-up is not in the URL"

    page.get_by_label("Value").fill("nobody@example.com")
    page.get_by_role("button", name="Look up").click()
    expect(page.get_by_role("alert")).to_contain_text("customer_not_found")


def test_the_fairness_simulator_runs_from_the_instant_win_page(page):
    sign_in(page)
    page.goto("/companies/demo/instant_wins")
    campaign = page.locator("#campaign-301")
    expect(campaign.locator("table.prizes")).to_contain_text("Free coffee")
    campaign.get_by_label("Draws").fill("20000")
    campaign.get_by_label("Seed (empty: random)").fill("11")
    campaign.get_by_role("button", name="Simulate").click()
    simulation = page.locator("#campaign-301 #simulation")
    expect(simulation).to_contain_text("20000 draws from seed 11")
    expect(simulation).to_contain_text("consistent with the weights")


class Receiver:
    """A webhook receiver on loopback answering the statuses it is given in
    turn, then 200, and keeping the event ids it got."""

    def __init__(self, statuses):
        import http.server
        import threading

        received = self.received = []
        answers = list(statuses)

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                received.append(self.headers["Loyalty-Event-Id"])
                self.send_response(answers.pop(0) if answers else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def test_webhook_deliveries_show_their_tries_and_are_sent_again(page, server):
    receiver = Receiver([500])
    try:
        endpoint = server.operator_call(
            "POST", "/companies/demo/webhooks", {"url": receiver.url, "events": ["*"]}
        )["id"]
        sign_in(page)
        page.goto("/companies/demo")
        page.get_by_role("link", name="Webhooks").click()
        section = page.locator(f"#endpoint-{endpoint}")
        expect(section).to_contain_text(receiver.url)
        expect(section).to_contain_text("No delivery yet.")

        section.get_by_role("button", name="Send a test event").click()
        expect(page.get_by_role("status")).to_contain_text("Test event")
        # Refused once (500), then delivered on the try a second later.
        row = page.locator(f"#endpoint-{endpoint} tr.delivery")
        for _ in range(50):
            page.reload()
            if row.count() == 1 and row.locator(".state").inner_text() == "delivered":
                break
            page.wait_for_timeout(200)
        expect(row.locator(".state")).to_have_text("delivered")
        expect(row.locator(".attempts")).to_have_text("2")
        expect(row).to_contain_text("webhook.test")
        assert len(receiver.received) == 2 and len(set(receiver.received)) == 1

        row.get_by_role("button", name="Send again").click()
        expect(page.get_by_role("status")).to_contain_text("sent to endpoint")
        for _ in range(50):
            page.reload()
            if row.locator(".attempts").inner_text() == "3":
                break
            page.wait_for_timeout(200)
        expect(row.locator(".attempts")).to_have_text("3")
        expect(row.locator(".state")).to_have_text("delivered")
        assert len(receiver.received) == 3 and len(set(receiver.received)) == 1
    finally:
        receiver.close()
