//! One test per class of mistake that used to load and be silently false.

use std::path::PathBuf;

use super::*;
use crate::engine::script::Origin;
use crate::engine::script::ScriptEngine;

fn known() -> Known {
    Known {
        tiers: vec!["silver".into(), "gold".into()],
        audiences: vec!["vip".into(), "students".into()],
        attributes: vec!["average_cart".into()],
    }
}

/// The problems of `source`, written at column 7 of line 5 of `c.yaml`.
fn problems(source: &str) -> Vec<String> {
    let origin = Origin {
        file: PathBuf::from("c.yaml"),
        line: 5,
        column: 7,
    };
    let engine = ScriptEngine::new();
    let script = engine.compile_with(source, origin, &["line"]).unwrap();
    check_script(&script, &known(), engine.functions())
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn conditions_over_known_facts_have_no_problem() {
    for source in [
        "cart.total > 40.0 && weekday == \"saturday\"",
        "tier == \"gold\" || \"vip\" in audiences || audiences.contains(\"students\")",
        "customer.attributes.anything == \"x\" && event.data.stars >= 4",
        "line.quantity >= 3 && line.product.attributes.brand == \"acme\"",
        "line.has_feature(\"department\", \"dairy\") && line.facets.department.contains(\"x\")",
        "history.spent_last_days(30) > 100.0 && calculated.average_cart > 20.0",
        "cart.lines.filter(|l| l.price > 2.0).len() >= 2 && cart.lines[0].quantity > 1",
        "weekday in [\"saturday\", \"sunday\"] && tier != ()",
        "cart.code.len() > 3 && customer.cards.len() > 0 && location.country == \"ES\"",
    ] {
        assert_eq!(problems(source), Vec::<String>::new(), "{source}");
    }
}

#[test]
fn an_unknown_field_is_named_with_its_neighbour_at_its_column() {
    let found = problems("cart.totl > 40.0");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("c.yaml:5:12: `cart` has no field `totl` (did you mean `total`?)"),
        "{found:?}"
    );
    let found = problems("customer.loyalty_membr && line.quantiy > 1");
    assert_eq!(found.len(), 2, "every problem, not the first: {found:?}");
    assert!(found[0].contains("`loyalty_member`"), "{found:?}");
    assert!(
        found[1].contains("`line` has no field `quantiy`"),
        "{found:?}"
    );
    let found = problems("calculated.avg_cart > 1.0");
    assert!(
        found[0].contains("`calculated` has no field `avg_cart`"),
        "{found:?}"
    );
}

#[test]
fn a_number_compared_with_text_is_caught() {
    let found = problems("line.quantity >= \"3\"");
    assert_eq!(
        found,
        [
            "c.yaml:5:24: `line.quantity` is a number and is compared with text: `>=` is always false (write 3 without quotes)"
        ]
    );
    let found = problems("weekday == 6");
    assert!(
        found[0].contains("`weekday` is text and is compared with a number"),
        "{found:?}"
    );
    let found = problems("customer.country == cart.total");
    assert!(
        found[0].contains("`customer.country` is text and `cart.total` is a number"),
        "{found:?}"
    );
}

#[test]
fn text_a_fact_never_holds_is_caught() {
    let found = problems("weekday == \"Monday\"");
    assert_eq!(
        found,
        ["c.yaml:5:18: `weekday` is never \"Monday\": it is written in lower case, \"monday\""]
    );
    let found = problems("tier == \"golden\"");
    assert!(
        found[0].contains("\"golden\" is not a tier of this Company, so `tier` is never it (did you mean \"gold\"?); they are silver, gold"),
        "{found:?}"
    );
    let found = problems("\"vips\" in audiences");
    assert!(
        found[0].contains("\"vips\" is not an audience of this Company"),
        "{found:?}"
    );
    let found = problems("audiences.contains(\"Students\")");
    assert!(found[0].contains("lower case"), "{found:?}");
    let found = problems("weekday in [\"Saturday\", \"sunday\"]");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("\"Saturday\""), "{found:?}");
}

#[test]
fn history_methods_are_checked() {
    let found = problems("history.spent_last_day(30) > 1.0");
    assert!(
        found[0]
            .contains("`history` has no method `spent_last_day` (did you mean `spent_last_days`?)"),
        "{found:?}"
    );
}

#[test]
fn tiers_campaigns_name_must_exist() {
    let text = "id: 1\nkind: instant_win\nname: I\non: cart\nselect_customers: loyalty\nonce: day\nonce_limit: 1\ntiers: [platinum, gold]\ninstant_win:\n  instant_win_prizes:\n    - id: none\n      name: No prize\n      weight: 1\n";
    let engine = ScriptEngine::new();
    let campaign = Campaign::parse(&engine, &PathBuf::from("c.yaml"), text).unwrap();
    let found: Vec<String> = check_campaign(&campaign, &known(), engine.functions())
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        found,
        [
            "c.yaml:8: `tiers` names tier `platinum`, which segments.yaml does not define; its tiers are silver, gold"
        ]
    );
}

#[test]
fn a_typo_inside_a_closure_or_a_method_is_refused_at_its_column() {
    for (source, expected) in [
        (
            "cart.lines.some(|l| l.has_feture(\"category\", \"wine\"))",
            "c.yaml:5:29: `l` has no method `has_feture` (did you mean `has_feature`?)",
        ),
        (
            "line.has_feture(\"category\", \"wine\")",
            "c.yaml:5:12: `line` has no method `has_feture` (did you mean `has_feature`?)",
        ),
        (
            "location.has_feture(\"format\", \"express\")",
            "c.yaml:5:16: `location` has no method `has_feture` (did you mean `has_feature`?)",
        ),
        (
            "cart.lines.filter(|l| l.prise > 2.0).len() > 1",
            "c.yaml:5:31: `l` has no field `prise` (did you mean `price`?)",
        ),
        (
            "cart.lines.some(|l| l.price > \"2\")",
            "c.yaml:5:37: `l.price` is a number and is compared with text: `>` is always false (write 2 without quotes)",
        ),
    ] {
        let found = problems(source);
        assert_eq!(found.len(), 1, "{source}: {found:?}");
        assert!(found[0].starts_with(expected), "{source}: {found:?}");
    }
}

#[test]
fn a_call_with_the_wrong_number_of_arguments_or_on_the_wrong_value_is_refused() {
    let found = problems("line.has_feature(\"department\")");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`has_feature` takes 2 arguments, not 1"),
        "{found:?}"
    );
    let found = problems("cart.lines.has_feature(\"department\", \"dairy\")");
    assert!(
        found[0].contains("`cart.lines` is a list: it has no method `has_feature`"),
        "{found:?}"
    );
    let found = problems("history.spent_last_days() > 10.0");
    assert!(
        found[0].contains("`spent_last_days` takes 1 argument, not 0"),
        "{found:?}"
    );
    let found = problems("has_feture(line, \"department\", \"dairy\")");
    assert!(
        found[0].contains("there is no function `has_feture` (did you mean `has_feature`?)"),
        "{found:?}"
    );
}

#[test]
fn closures_see_their_parameters_and_what_they_capture() {
    for source in [
        "cart.lines.all(|l| l.quantity >= 1 && l.product.features.brand != \"x\")",
        "cart.lines.filter(|l, i| i > 0 && l.price > cart.total / 10.0).len() > 0",
        "cart.lines.map(|l| l.price * l.quantity).len() > 2",
        "cart.lines.some(|l| l.taxonomies.some(|t| t.starts_with(\"wine\")))",
        "customer.cards.some(|c| c.kind == \"physical\")",
        "cart.lines.reduce(|sum, l| sum + l.quantity, 0) > 3",
    ] {
        assert_eq!(problems(source), Vec::<String>::new(), "{source}");
    }
    let found = problems("cart.lines.some(|l| l.taxonomies.some(|t| t.quantity > 1))");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`t` is text: it has no field `quantity`"),
        "{found:?}"
    );
    let found = problems("customer.cards.some(|c| c.knd == \"physical\")");
    assert!(
        found[0].contains("`c` has no field `knd` (did you mean `kind`?)"),
        "{found:?}"
    );
}
