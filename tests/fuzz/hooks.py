"""Schemathesis hooks for the fuzzing run (tests/fuzz/run).

The spec states every rule the service enforces in OpenAPI 3.0 keywords,
except a few that 3.0 has no keyword for. The spec says them in descriptions
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
  per line, and the lines add up to at most 10^10 (rules between fields).
- Amounts have at most the Company's currency decimals (2 for the demo
  Company's EUR): the spec is one for every Company and currency.
The last two are made true by changing generated carts (`map_case`), since
filtering them out would leave too few carts to test.
- A Coupon's `discount.amount` and `max_amount` are more than 0 (the schema
  of an amount says at least 0) and in cents: `map_case` makes them so in
  valid cases.
- A campaign's `when` is a rhai expression, a grammar no schema states: in
  valid cases `map_case` writes one that compiles (tests/points.rs refuses the
  ones that do not).
- Some lists need one of two query parameters (`x-one-of-required`): OpenAPI
  has no dependencies between parameters.
- A points campaign's `points` names at least one way to earn (`per_amount`,
  `per_product` or `fixed`) and at most one expiry (`expires_after_days` or
  `expires_at`); a manual adjustment's `expires_at` needs positive `points`
  (only credits expire) and lies in the future: rules between fields or
  against the clock, kept by dropping the valid cases that break them
  (`keeps_rules_between_fields`).
- A Voucher rollback names `codes` or `redemption_ids`, one of them, and
  with `codes` the Customer.
- A discount campaign's `discount` has one of `percent`, `amount` and
  `price` (exactly one when created), `lines` when it `applies_to: lines`
  and never on `cart` or `bundle`, the keys of its `applies_to` (`nth`,
  `units` and `min_units` above them, `bundle`, `size`, `max_sets`, `price`)
  and no other's (`max_units` is `every_nth`'s; in valid cases `map_case` writes `lines` and bundle parts
  that compile), and `available_from` not after `available_to`; its amounts
  and a discount redemption's `base_amount` are in cents (`map_case`).
- A Coupon's `discount` has exactly one of `percent` and `amount`; it has a
  `static_code` or a `code_pattern` (with its `charset`), not both; a charset
  holds no two characters read the same (`O` and `0`, `I`, `L` and `1`, a
  letter in both cases); `hours.from` is before `hours.to` and `valid_from`
  not after `valid_to`.
- A `stacking` section is `exclusive: true` or names `combines_with`, not
  both, and only a Coupon's has `max_per_cart`: `map_case` makes valid
  cases so.
- Each of `limits` counts `redemptions`, `amount` (in cents, more than 0) or
  both, and names each `per`/`each` pair once: `map_case` makes valid cases
  so.

Two rules the spec does state, the fuzzer's generator skips when it makes a
valid case: a field under `anyOf` that is not `nullable` is still sent
`null`, and a field under `not` (an adjustment's `points: 0`) still takes the
value `not` excludes. Valid cases breaking them are dropped
(`states_what_its_schema_says`); invalid ones are kept and must be refused.
"""

import datetime
import re

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


MAX_CART = 1e10


def amounts_a_cart_can_have(body):
    """Makes a generated cart's amounts ones the demo Company takes, without
    changing whether the case is valid for its schema: amounts in cents (the
    schema says nothing of decimals), lines adding up to at most the cart
    bound, and a `total` within the lines (or none)."""
    lines = body.get("lines")
    if not isinstance(lines, list) or not all(isinstance(line, dict) for line in lines):
        return body
    def cents(value):
        # Only amounts the schema takes: rounding must not make a case that
        # is invalid for its schema (a negative price) valid.
        if isinstance(value, float) and 0 <= value <= MAX_CART:
            return round(value, 2)
        return value

    for line in lines:
        if "price" in line:
            line["price"] = cents(line["price"])
    if "total" in body:
        body["total"] = cents(body["total"])
    numbers = [
        (line.get("price"), line.get("quantity", 1))
        for line in lines
    ]
    if not all(
        isinstance(price, (int, float)) and not isinstance(price, bool)
        and isinstance(quantity, (int, float)) and not isinstance(quantity, bool)
        for price, quantity in numbers
    ):
        return body
    if any(price < 0 or quantity <= 0 for price, quantity in numbers):
        return body
    if sum(price * quantity for price, quantity in numbers) > MAX_CART:
        share = round(MAX_CART / (2 * len(lines)), 2)
        for line in lines:
            line["quantity"] = 1
            line["price"] = min(line["price"], share)
        numbers = [(line["price"], 1) for line in lines]
    worth = sum(price * quantity for price, quantity in numbers)
    total = body.get("total")
    if isinstance(total, (int, float)) and not isinstance(total, bool) and total > worth:
        del body["total"]
    return body


def one_of_required_is_given(case):
    query = case.query or {}
    for pair in case.operation.definition.raw.get("x-one-of-required", []):
        if not any(query.get(name) not in (None, "") for name in pair):
            return False
    return True


def resolved(spec, schema):
    """`schema` with its `$ref`s followed."""
    while isinstance(schema, dict) and "$ref" in schema:
        node = spec
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def body_schema(case):
    spec = case.operation.schema.raw_schema
    body = case.operation.definition.raw.get("requestBody", {})
    schema = body.get("content", {}).get("application/json", {}).get("schema")
    return spec, resolved(spec, schema)


def breaks_a_skipped_rule(spec, field, value):
    """Whether `value` breaks what the field's schema says with `nullable`
    missing under `anyOf`, or with `not`."""
    field = resolved(spec, field)
    if not isinstance(field, dict):
        return False
    if value is None and "anyOf" in field and not field.get("nullable"):
        return True
    excluded = field.get("not", {}).get("enum", [])
    return any(value == each and type(value) is type(each) for each in excluded)


def states_what_its_schema_says(case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or not isinstance(case.body, dict):
        return True
    spec, schema = body_schema(case)
    if not isinstance(schema, dict):
        return True
    properties = schema.get("properties", {})
    return not any(
        breaks_a_skipped_rule(spec, properties[name], value)
        for name, value in case.body.items()
        if name in properties
    )


def points_name_one_way_to_earn(body):
    points = body.get("points")
    if not isinstance(points, dict):
        return True
    earns = (
        points.get("per_amount") is not None
        or bool(points.get("per_product"))
        or points.get("fixed") is not None
    )
    expiries = sum(points.get(name) is not None for name in ("expires_after_days", "expires_at"))
    return earns and expiries <= 1


def a_points_campaign(body, creating):
    """One way to earn, dates in order, and limits only on a campaign that
    listens to events (one given only as a prize has no budget of its own)."""
    if not points_name_one_way_to_earn(body):
        return False
    if not dates_in_order(body.get("available_from"), body.get("available_to")):
        return False
    listens = body.get("on") is not None
    prize_only = ("on" in body or creating) and not listens
    limits = body.get("limits") if isinstance(body.get("limits"), list) else []
    if limits and prize_only:
        return False
    # A points limit counts redemptions, points or both, never money.
    return all(
        isinstance(limit, dict)
        and limit.get("amount") is None
        and (limit.get("redemptions") is not None or limit.get("points") is not None)
        for limit in limits
    )


def instant(text):
    try:
        value = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (AttributeError, TypeError, ValueError):
        return None
    return value if value.tzinfo is not None else None


def an_event_of_the_last_year(case):
    """A cart or Custom Event happened at most 365 days before the service's
    time and at most 10 minutes after it (`at` on a simulation)."""
    if not isinstance(case.body, dict) or case.body.get("date") is None:
        return True
    when = instant(case.body["date"])
    if when is None:
        return True
    now = instant((case.query or {}).get("at") or "") or datetime.datetime.now(datetime.timezone.utc)
    return now - datetime.timedelta(days=365) <= when <= now + datetime.timedelta(minutes=10)


def in_the_future(text):
    try:
        instant = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        return True  # not a date: the schema's own check
    if instant.tzinfo is None:
        return True
    return instant > datetime.datetime.now(datetime.timezone.utc)


def only_credits_expire_later(body):
    expires_at = body.get("expires_at")
    if expires_at is None:
        return True
    points = body.get("points")
    credit = not isinstance(points, (int, float)) or points > 0
    return credit and in_the_future(expires_at)


def code_key_of(character):
    upper = character.upper()
    return {"O": "0", "I": "1", "L": "1"}.get(upper, upper)


def a_coupon_is_one_thing(body):
    discount = body.get("discount")
    if isinstance(discount, dict):
        given = [discount.get(name) is not None for name in ("percent", "amount")]
        if sum(given) != 1:
            return False
    if body.get("static_code") is not None and (
        body.get("code_pattern") is not None or body.get("charset") is not None
    ):
        return False
    charset = body.get("charset")
    if isinstance(charset, str) and len({code_key_of(c) for c in charset}) != len(charset):
        return False
    hours = body.get("hours")
    if isinstance(hours, dict) and isinstance(hours.get("from"), str) and isinstance(hours.get("to"), str):
        if hours["from"] >= hours["to"]:
            return False
    valid_from, valid_to = body.get("valid_from"), body.get("valid_to")
    if isinstance(valid_from, str) and isinstance(valid_to, str):
        try:
            parse = lambda text: datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
            if parse(valid_from) > parse(valid_to):
                return False
        except ValueError:
            pass
    return True


# Keys only some `applies_to` values have, and those values.
DISCOUNT_KEYS_OF = {
    "nth": ("every_nth",),
    "max_units": ("every_nth",),
    "units": ("cheapest",),
    "min_units": ("cheapest",),
    "bundle": ("bundle",),
    "size": ("set",),
    "max_sets": ("bundle", "set"),
    "price": ("every_nth", "cheapest", "bundle", "set"),
}
# Keys an `applies_to` value needs.
DISCOUNT_NEEDS = {"lines": "lines", "every_nth": "nth", "bundle": "bundle", "set": "size"}


def a_discount_is_one_thing(body, creating):
    discount = body.get("discount")
    if isinstance(discount, dict):
        applies_to = discount.get("applies_to") or "cart"
        given = sum(discount.get(name) is not None for name in ("percent", "amount", "price"))
        if given > 1 or (creating and given != 1):
            return False
        if discount.get("lines") is not None and applies_to in ("cart", "bundle"):
            return False
        needed = DISCOUNT_NEEDS.get(applies_to)
        if needed is not None and discount.get(needed) is None:
            return False
        for key, targets in DISCOUNT_KEYS_OF.items():
            if discount.get(key) is not None and applies_to not in targets:
                return False
        units, least = discount.get("units"), discount.get("min_units")
        if isinstance(units, int) and isinstance(least, int) and least <= units:
            return False
    return dates_in_order(body.get("available_from"), body.get("available_to"))


def dates_in_order(first, last):
    if isinstance(first, str) and isinstance(last, str):
        try:
            parse = lambda text: datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
            return parse(first) <= parse(last)
        except ValueError:
            pass
    return True


def a_rollback_names_one_thing(body):
    codes, ids = body.get("codes") or [], body.get("redemption_ids") or []
    if bool(codes) == bool(ids):
        return False
    return not codes or any(body.get(name) is not None for name in ("customer_id", "customer_code"))


LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*")


def a_printable_code(value):
    return isinstance(value, str) and 0 < len(value.strip()) <= 128 and not any(
        ord(c) < 32 or 127 <= ord(c) < 160 for c in value
    )


def features_are_slugs(body):
    features = body.get("features")
    if not isinstance(features, dict):
        return True
    return all(
        SLUG.fullmatch(taxonomy)
        and isinstance(slugs, list)
        and all(isinstance(slug, str) and SLUG.fullmatch(slug) for slug in slugs)
        for taxonomy, slugs in features.items()
    )


def a_catalogue_record(body):
    """A Product or Location: codes and aliases printable and distinct,
    names by language code, features as slugs."""
    code = body.get("code")
    if code is not None and not a_printable_code(code):
        return False
    aliases = body.get("aliases") or []
    if not all(a_printable_code(alias) for alias in aliases):
        return False
    keys = [k.strip() for k in ([code] if isinstance(code, str) else []) + aliases]
    if len(keys) != len(set(keys)):
        return False
    names = body.get("names")
    if isinstance(names, dict) and not all(
        LANGUAGE.fullmatch(language) and isinstance(name, str) and 0 < len(name.strip()) <= 200
        for language, name in names.items()
    ):
        return False
    zone = body.get("time_zone")
    if zone is not None and zone not in ("UTC", "Europe/Madrid", "Atlantic/Canary"):
        return False
    return features_are_slugs(body)


def a_promotion(body, creating):
    given = sum(body.get(name) is not None for name in ("percent", "amount"))
    if given > 1 or (creating and (given != 1 or body.get("name") is None)):
        return False
    products = body.get("products") or []
    if not all(a_printable_code(code) for code in products):
        return False
    return features_are_slugs(body) and dates_in_order(body.get("valid_from"), body.get("valid_to"))


def a_location_feature(body):
    return body.get("discountable") is None


RULES_BETWEEN_FIELDS = {
    ("POST", "/points"): lambda body: a_points_campaign(body, True),
    ("PATCH", "/points/{value}"): lambda body: a_points_campaign(body, False),
    ("POST", "/scores/trigger"): only_credits_expire_later,
    ("POST", "/coupons"): a_coupon_is_one_thing,
    ("PATCH", "/coupons/{id}"): a_coupon_is_one_thing,
    ("POST", "/vouchers/rollback"): a_rollback_names_one_thing,
    ("POST", "/discounts"): lambda body: a_discount_is_one_thing(body, True),
    ("PATCH", "/discounts/{value}"): lambda body: a_discount_is_one_thing(body, False),
    ("POST", "/products"): a_catalogue_record,
    ("PATCH", "/products/{id}"): a_catalogue_record,
    ("POST", "/locations"): a_catalogue_record,
    ("PATCH", "/locations/{value}"): a_catalogue_record,
    ("POST", "/promotions"): lambda body: a_promotion(body, True),
    ("PATCH", "/promotions/{id}"): lambda body: a_promotion(body, False),
    ("POST", "/locations/taxonomies/{taxonomy_slug}/features"): a_location_feature,
    ("PATCH", "/locations/taxonomies/{taxonomy_slug}/features/{id}"): a_location_feature,
}


def keeps_rules_between_fields(case):
    rule = RULES_BETWEEN_FIELDS.get((case.operation.method.upper(), case.operation.path))
    meta = case.meta
    if rule is None or meta is None or not meta.generation.mode.is_positive:
        return True
    return not isinstance(case.body, dict) or rule(case.body)


def author_header_as_its_schema_says(case):
    """The coverage phase sends an over-long `X-Author-Email` in cases it
    calls valid (it checks the header under another spelling); drop them."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return True
    value = (case.headers or {}).get("X-Author-Email")
    if value is None:
        return True
    for parameter in case.operation.definition.raw.get("parameters", []):
        if parameter.get("name") == "X-Author-Email":
            schema = parameter.get("schema", {})
            return len(value) <= schema.get("maxLength", len(value)) and bool(
                re.fullmatch(schema.get("pattern", ".*"), value)
            )
    return True


@schemathesis.hook
def filter_case(ctx, case):
    """Runs in every phase (coverage, fuzzing, stateful) on whole cases."""
    if not one_of_required_is_given(case) or not author_header_as_its_schema_says(case):
        return False
    if not states_what_its_schema_says(case) or not keeps_rules_between_fields(case):
        return False
    body = case.body
    if not isinstance(body, dict):
        return True
    return (
        attribute_names_are_slugs(body)
        and search_fields_are_known(body)
        and cards_are_listed_once(body)
    )


def a_condition_that_compiles(case):
    meta = case.meta
    if (
        meta is not None
        and meta.generation.mode.is_positive
        and isinstance(case.body, dict)
        and isinstance(case.body.get("when"), str)
    ):
        case.body["when"] = "cart_count >= 0"
    if (
        meta is not None
        and meta.generation.mode.is_positive
        and isinstance(case.body, dict)
        and isinstance(case.body.get("discount"), dict)
        and isinstance(case.body["discount"].get("lines"), str)
    ):
        case.body["discount"]["lines"] = "line.quantity > 0"
    if (
        meta is not None
        and meta.generation.mode.is_positive
        and isinstance(case.body, dict)
        and isinstance(case.body.get("discount"), dict)
        and isinstance(case.body["discount"].get("bundle"), list)
    ):
        parts = case.body["discount"]["bundle"]
        case.body["discount"]["bundle"] = ["line.quantity > 0" for _ in parts]


def in_cents(fields, names):
    """Money of the demo Company: `names` of `fields` rounded to cents."""
    for name in names:
        value = fields.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= MAX_CART:
            fields[name] = max(round(value, 2), 0.01)


def coupon_amounts_in_cents(case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or not isinstance(case.body, dict):
        return
    discount = case.body.get("discount")
    if isinstance(discount, dict):
        in_cents(discount, ("amount", "max_amount", "price"))


def catalogue_amounts_in_cents(case):
    """A Product's price and a Promotion's amount: money of the Company."""
    meta = case.meta
    if meta is not None and meta.generation.mode.is_positive and isinstance(case.body, dict):
        in_cents(case.body, ("price", "amount"))


def base_amount_in_cents(case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or not isinstance(case.body, dict):
        return
    value = case.body.get("base_amount")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= MAX_CART:
        case.body["base_amount"] = round(value, 2)


def stacking_as_written(case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or not isinstance(case.body, dict):
        return
    stacking = case.body.get("stacking")
    if not isinstance(stacking, dict):
        return
    if stacking.get("exclusive") is True and "combines_with" in stacking:
        del stacking["exclusive"]
    if case.operation.path.startswith("/discounts"):
        stacking.pop("max_per_cart", None)


def limits_as_written(case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or not isinstance(case.body, dict):
        return
    limits = case.body.get("limits")
    if not isinstance(limits, list):
        return
    kept, seen = [], set()
    for limit in limits:
        if not isinstance(limit, dict):
            continue
        pair = (limit.get("per"), limit.get("each"))
        if pair in seen:
            continue
        seen.add(pair)
        amount = limit.get("amount")
        if isinstance(amount, (int, float)) and not isinstance(amount, bool):
            limit["amount"] = min(max(round(amount, 2), 0.01), MAX_CART)
        if limit.get("redemptions") is None and limit.get("amount") is None:
            limit["redemptions"] = 1
        kept.append(limit)
    case.body["limits"] = kept


@schemathesis.hook
def map_case(ctx, case):
    """Runs after `filter_case`, in every phase."""
    a_condition_that_compiles(case)
    if case.operation.path.startswith(("/coupons", "/discounts")):
        coupon_amounts_in_cents(case)
        stacking_as_written(case)
        limits_as_written(case)
    if case.operation.path.startswith(("/products", "/promotions")):
        catalogue_amounts_in_cents(case)
    if case.operation.path == "/discounts/redeem":
        base_amount_in_cents(case)
    if case.operation.path.startswith("/carts/") and isinstance(case.body, dict):
        case.body = amounts_a_cart_can_have(case.body)
    positive = case.meta is not None and case.meta.generation.mode.is_positive
    timed = case.operation.path in ("/carts/realtime", "/carts/simulate", "/custom_events", "/trigger")
    if positive and timed and not an_event_of_the_last_year(case):
        # Rules relative to the service's time: a valid case happened now.
        del case.body["date"]
    return case
