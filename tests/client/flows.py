"""The main integrator flows through a client generated from /openapi.json.

Run by tests/fuzz/run after it has generated `loyalty_client` with
openapi-python-client: every call goes through the typed client, and every
answer must parse into the model the spec promises (a field the spec calls
required but the service leaves out, or `null` where the spec forbids it,
fails here).

Environment: LOYALTY_URL, LOYALTY_KEY, LOYALTY_SECRET.
"""

import datetime
import os
import sys
import uuid

from loyalty_client import AuthenticatedClient
from loyalty_client.api.carts import get_carts, get_carts_id, post_carts_realtime
from loyalty_client.api.customers import get_customers_value, post_customers
from loyalty_client.api.events import post_custom_events
from loyalty_client.api.instant_win import get_instant_wins
from loyalty_client.api.points import (
    get_customers_value_points,
    get_points_transactions,
    post_points_redeem,
)
from loyalty_client.api.utilities import get_check
from loyalty_client.models import (
    Balances,
    CartList,
    CartResponse,
    CheckBody,
    Customer,
    ErrorBody,
    EventResponse,
    InstantWinList,
    NewCart,
    NewCartLine,
    NewCustomer,
    NewEvent,
    OperationResult,
    PointsTransactionList,
    Redemption,
)
from loyalty_client.types import Unset


def expect(response, model, status=200):
    """The parsed answer, which must be `model` with `status`."""
    if response.status_code != status or not isinstance(response.parsed, model):
        sys.exit(
            f"expected {status} {model.__name__}, got {response.status_code} "
            f"{type(response.parsed).__name__}: {response.content[:500]!r}"
        )
    return response.parsed


def main():
    client = AuthenticatedClient(
        base_url=os.environ["LOYALTY_URL"],
        token=os.environ["LOYALTY_SECRET"],
        prefix="",
        auth_header_name="X-Api-Secret",
        headers={"X-Api-Key": os.environ["LOYALTY_KEY"], "X-Api-Version": "1"},
        raise_on_unexpected_status=True,
    )
    check = expect(get_check.sync_detailed(client=client), CheckBody)
    assert check.company == "demo", check

    email = f"flow-{uuid.uuid4().hex[:8]}@example.com"
    created = expect(
        post_customers.sync_detailed(
            client=client,
            body=NewCustomer(email=email, first_name="Ana"),
            idempotency_key=str(uuid.uuid4()),
        ),
        Customer,
    )
    read = expect(get_customers_value.sync_detailed(created.id, client=client), Customer)
    assert read.email == email and read.first_name == "Ana", read
    assert read.phone is None, "an absent field reads as None"

    code = f"T-{uuid.uuid4().hex[:10]}"
    cart = NewCart(
        code=code,
        customer_id=created.id,
        date=datetime.datetime.now(datetime.UTC).replace(microsecond=0),
        lines=[NewCartLine(product_code="COFFEE", quantity=2.0, price=2.5)],
    )
    answer = expect(
        post_carts_realtime.sync_detailed(
            client=client, body=cart, explain=True, idempotency_key=str(uuid.uuid4())
        ),
        CartResponse,
    )
    assert answer.cart.id == code, answer
    assert answer.effects, "the demo Company's points campaign applies"
    earned = answer.cart.points_earned
    assert earned > 0, answer

    stored = get_carts_id.sync_detailed(code, client=client)
    assert stored.status_code == 200 and stored.parsed.total == 5.0, stored.content
    listed = expect(get_carts.sync_detailed(client=client, customer_id=created.id), CartList)
    assert [c.id for c in listed.carts] == [code], listed

    event = expect(
        post_custom_events.sync_detailed(
            client=client,
            body=NewEvent(customer_id=created.id, type_="app_open"),
            idempotency_key=str(uuid.uuid4()),
        ),
        EventResponse,
    )
    assert isinstance(event.effects, list), event

    balances = expect(
        get_customers_value_points.sync_detailed(created.id, client=client), Balances
    )
    assert balances.points == earned, balances
    redeemed = expect(
        post_points_redeem.sync_detailed(
            client=client,
            body=Redemption(customer_id=created.id, points=1),
            idempotency_key=str(uuid.uuid4()),
        ),
        OperationResult,
    )
    assert redeemed.balance == earned - 1, redeemed
    refused = post_points_redeem.sync_detailed(
        client=client,
        body=Redemption(customer_id=created.id, points=earned),
        idempotency_key=str(uuid.uuid4()),
    )
    assert refused.status_code == 422 and isinstance(refused.parsed, ErrorBody), refused
    assert refused.parsed.code == "customer_not_enough_score", refused.parsed

    transactions = expect(
        get_points_transactions.sync_detailed(client=client, customer_id=created.id),
        PointsTransactionList,
    )
    assert len(transactions.transactions) == 2, transactions
    wins = expect(
        get_instant_wins.sync_detailed(client=client, customer_id=created.id),
        InstantWinList,
    )
    assert not isinstance(wins.instant_wins, Unset), wins
    print(f"generated client: every flow parsed ({len(transactions.transactions)} transactions)")


if __name__ == "__main__":
    main()
