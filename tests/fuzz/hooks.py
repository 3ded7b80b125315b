"""Schemathesis hooks for the fuzzing run (tests/fuzz/run).

The spec states every rule the service enforces in OpenAPI 3.0 keywords,
except six that 3.0 has no keyword for. The spec says them in descriptions
(and `x-one-of-required`); these hooks teach them to the fuzzer, so that a
request it generates as valid is valid, and the check that every valid
request is accepted (positive_data_acceptance) holds for everything else.
The service refuses each with 400 `invalid_request`, as tests/ show.

- Names of custom `attributes` are slugs (1 to 64 letters, digits, `_` or
  `-`): a rule on the keys of a map (`propertyNames` is OpenAPI 3.1).
- The keys of a Customer search's `filters` are the fields the search
  describes, or `attributes.` and a slug: again a rule on keys.
- A new Customer's `cards` hold each number once (`uniqueItems` compares
  whole items; a card is the same card whatever its `kind`).
- A cart's `total` is at most what its lines add up to, plus one minor unit
  per line (a rule between fields).
- Amounts have at most the Company's currency decimals (2 for the demo
  Company's EUR): the spec is one for every Company and currency.
- Some lists need one of two query parameters (`x-one-of-required`): OpenAPI
  has no dependencies between parameters.
"""

import re
from decimal import Decimal

import schemathesis

SLUG = re.compile(r"[A-Za-z0-9_-]{1,64}")
SEARCH_FIELDS = {
    "id", "code", "email", "phone", "card", "first_name", "last_name", "birth_date",
    "gender", "language", "country", "postal_code", "active", "loyalty_member",
}


def attribute_names_are_slugs(body):
    attributes = body.get("attributes")
    if not isinstance(attributes, dict):
        return True
    return all(SLUG.fullmatch(name) for name in attributes)


def search_fields_are_known(body):
    filters = body.get("filters")
    if not isinstance(filters, dict):
        return True
    return all(
        name in SEARCH_FIELDS
        or (name.startswith("attributes.") and SLUG.fullmatch(name[len("attributes."):]))
        for name in filters
    )


def cards_are_listed_once(body):
    cards = body.get("cards")
    if not isinstance(cards, list):
        return True
    numbers = [
        card["number"].strip()
        for card in cards
        if isinstance(card, dict) and isinstance(card.get("number"), str)
    ]
    return len(numbers) == len(set(numbers))


def total_within_the_lines(body):
    lines = body.get("lines")
    total = body.get("total")
    if not isinstance(lines, list) or not isinstance(total, (int, float)):
        return True
    worth = 0.0
    for line in lines:
        if not isinstance(line, dict):
            return True
        price, quantity = line.get("price"), line.get("quantity", 1)
        if not isinstance(price, (int, float)) or not isinstance(quantity, (int, float)):
            return True
        worth += price * quantity
    return total <= worth + 0.01 * len(lines) - 1e-6


def amounts_in_cents(body):
    def cents(value):
        if not isinstance(value, float):
            return True
        exponent = Decimal(repr(value)).as_tuple().exponent
        return isinstance(exponent, int) and exponent >= -2
    lines = body.get("lines")
    if not cents(body.get("total")):
        return False
    if isinstance(lines, list):
        return all(not isinstance(line, dict) or cents(line.get("price")) for line in lines)
    return True


def one_of_required_is_given(case):
    query = case.query or {}
    for pair in case.operation.definition.raw.get("x-one-of-required", []):
        if not any(query.get(name) not in (None, "") for name in pair):
            return False
    return True


@schemathesis.hook
def filter_case(ctx, case):
    """Runs in every phase (coverage, fuzzing, stateful) on whole cases."""
    if not one_of_required_is_given(case):
        return False
    body = case.body
    if not isinstance(body, dict):
        return True
    return (
        attribute_names_are_slugs(body)
        and search_fields_are_known(body)
        and cards_are_listed_once(body)
        and total_within_the_lines(body)
        and amounts_in_cents(body)
    )
