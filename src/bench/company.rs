//! The Company a benchmark runs against: campaign files of mixed kinds with
//! real conditions, segments with a purchase history tier, and a product
//! catalogue carts are drawn from. The engine micro-benchmarks evaluate the
//! same campaigns, so both measure one realistic rule set.

use rand::Rng;
use serde_json::{Value, json};

/// The Custom Event type the Instant Win with the hot prize listens to.
pub const HOT_PRIZE_EVENT: &str = "scan";

/// The Custom Event type drawing the hot prize's counterpart: the same odds
/// and outcome, with an unlimited stock no draw competes for.
pub const COLD_PRIZE_EVENT: &str = "scan_cold";
/// A Custom Event type some points campaigns listen to.
pub const APP_EVENT: &str = "app_open";

/// Departments of the catalogue; each product is in one (taxonomy `d<n>`).
const DEPARTMENTS: usize = 12;
/// Brands of the catalogue (feature `brand`).
const BRANDS: usize = 40;

/// The text of campaign file number `n` (0-based) of a set: line and cart
/// discounts, points per euro, per product and fixed, wallet cashback, tier
/// rewards, Instant Wins on carts, and points for app events. Every one is
/// active and listens to a cart or a Custom Event.
pub fn campaign_text(n: usize) -> String {
    let id = 10_000 + n;
    match n % 10 {
        0 | 5 => format!(
            "id: {id}\nkind: discount\nname: Department week {n}\non: cart\n\
             when: weekday != \"sunday\" && cart.total >= {min}.0\n\
             discount:\n  applies_to: lines\n  \
             lines: line.taxonomies.contains(\"d{d}\") || line.product_code == \"P{p:05}\"\n  percent: {pct}\n",
            min = n % 20,
            d = n % DEPARTMENTS,
            p = (n * 37) % 2_000,
            pct = 5 + n % 4 * 5
        ),
        1 => format!(
            "id: {id}\nkind: discount\nname: Basket {n}\non: cart\n\
             when: customer.loyalty_member && cart.lines.len() >= {lines} && cart.total >= {min}.0\n\
             discount:\n  applies_to: cart\n  amount: 1.5\n  max_amount: 5.0\n",
            lines = 2 + n % 5,
            min = 15 + n % 30
        ),
        2 => format!(
            "id: {id}\nkind: points\nname: Points per euro {n}\non: cart\n\
             when: customer.loyalty_member && hour >= {h}\n\
             points:\n  per_amount: 1\n  per_product: {{ P{p:05}: 5, P{q:05}: 10 }}\n",
            h = n % 12,
            p = (n * 53) % 2_000,
            q = (n * 71) % 2_000
        ),
        3 => format!(
            "id: {id}\nkind: points\nname: Big basket {n}\non: cart\n\
             when: cart.total > {t}.0 && tier != ()\npoints:\n  fixed: 20\n  expires_after_days: 90\n",
            t = 40 + n % 30
        ),
        4 => format!(
            "id: {id}\nkind: discount\nname: Brand days {n}\non: cart\n\
             when: weekday == \"{day}\" || \"families\" in audiences\n\
             discount:\n  applies_to: lines\n  lines: line.has_feature(\"brand\", \"b{b}\")\n  percent: 15\n",
            day = ["monday", "tuesday", "wednesday", "thursday", "friday"][n % 5],
            b = n % BRANDS
        ),
        6 => format!(
            "id: {id}\nkind: points\nname: Wallet cashback {n}\non: cart\n\
             when: tier == \"gold\" || cart.total >= {t}.0\npoints:\n  per_amount: 2\n  balance: wallet\n",
            t = 60 + n % 40
        ),
        7 => format!(
            "id: {id}\nkind: instant_win\nname: Till draw {n}\non: cart\n\
             when: cart.total >= 10.0 && customer.loyalty_member\nonce: day\nonce_limit: 3\n\
             instant_win:\n  instant_win_prizes:\n    \
             - {{ id: gift, name: Gift, weight: 0.1, stock: 1000000, outcome: {{ promotion_type: points, promotion_id: 9001 }} }}\n    \
             - {{ id: none, name: No prize, weight: 0.9 }}\n"
        ),
        8 => format!(
            "id: {id}\nkind: points\nname: App bonus {n}\non: {{ custom_event: {APP_EVENT} }}\n\
             when: customer.loyalty_member && event.data.screen == \"{screen}\"\npoints:\n  fixed: 5\n",
            screen = ["home", "offers", "wallet"][n % 3]
        ),
        _ => format!(
            "id: {id}\nkind: discount\nname: Members' lines {n}\non: cart\n\
             when: customer.loyalty_member && tier != ()\n\
             discount:\n  applies_to: lines\n  \
             lines: line.price >= {p}.0 && line.taxonomies.contains(\"d{d}\")\n  amount: 0.5\n",
            p = 2 + n % 8,
            d = (n + 5) % DEPARTMENTS
        ),
    }
}

/// The campaign files of a Company with `count` active campaigns, plus the
/// prize-only campaign and the Instant Win with the hot prize, as
/// (file name, text).
/// The static codes a cart of the voucher scenario presents, one per
/// benchmark Coupon.
pub const VOUCHER_CODES: [&str; 3] = ["BENCH-A", "BENCH-B", "BENCH-C"];

/// The id of the first benchmark Coupon; the others follow.
pub const FIRST_COUPON: i64 = 9100;

/// What each benchmark Coupon takes off: a percentage with an excluded
/// department, a fixed amount, a capped percentage with an excluded product.
const COUPONS: [&str; 3] = [
    "  discount: { percent: 5 }\n  excluded_categories: [d0]\n",
    "  discount: { amount: 2 }\n",
    "  discount: { percent: 10, max_amount: 5 }\n  excluded_products: [P00001]\n",
];

pub fn campaign_files(count: usize) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = (0..count.saturating_sub(1))
        .map(|n| (format!("campaign-{n:03}.yaml"), campaign_text(n)))
        .collect();
    files.push((
        "hot-prize.yaml".into(),
        format!(
            "id: 9000\nkind: instant_win\nname: Scan and win\non: {{ custom_event: {HOT_PRIZE_EVENT} }}\n\
             when: customer.loyalty_member\nonce: day\nonce_limit: 1000\n\
             instant_win:\n  instant_win_prizes:\n    \
             - {{ id: hot, name: Hot prize, weight: 0.5, stock: 100000000, outcome: {{ promotion_type: points, promotion_id: 9001 }} }}\n    \
             - {{ id: none, name: No prize, weight: 0.5 }}\n"
        ),
    ));
    // The same draw with a prize of unlimited stock: no counter for
    // concurrent draws to race on.
    files.push((
        "cold-prize.yaml".into(),
        format!(
            "id: 9002\nkind: instant_win\nname: Scan and win, unlimited\non: {{ custom_event: {COLD_PRIZE_EVENT} }}\n\
             when: customer.loyalty_member\nonce: day\nonce_limit: 1000\n\
             instant_win:\n  instant_win_prizes:\n    \
             - {{ id: cold, name: Cold prize, weight: 0.5, stock: -1, outcome: {{ promotion_type: points, promotion_id: 9001 }} }}\n    \
             - {{ id: none, name: No prize, weight: 0.5 }}\n"
        ),
    ));
    for (n, (code, coupon)) in VOUCHER_CODES.iter().zip(COUPONS).enumerate() {
        files.push((
            format!("coupon-{n}.yaml"),
            format!(
                "id: {id}\nkind: coupon\nname: Bench coupon {n}\ncoupon:\n  static_code: {code}\n  \
                 uses_per_voucher: 1000000\n{coupon}",
                id = FIRST_COUPON + n as i64
            ),
        ));
    }
    files.push((
        "prize-points.yaml".into(),
        "id: 9001\nkind: points\nname: Prize points\npoints:\n  fixed: 25\n".into(),
    ));
    files
}

/// The Company's segments: a calculated attribute, tiers by the last year's
/// spend (so every event reads the purchase history), and audiences.
pub const SEGMENTS: &str = "\
attributes:
  - id: average_cart
    description: Average amount per cart
    expression: \"if cart_count > 0 { lifetime_spend / cart_count } else { 0.0 }\"
tiers:
  - id: member
    name: Member
    condition: customer.loyalty_member
  - id: silver
    name: Silver
    condition: customer.loyalty_member && history.spent_last_days(365) >= 200.0
  - id: gold
    name: Gold
    condition: customer.loyalty_member && history.spent_last_days(365) >= 800.0
audiences:
  - id: marketing_email
    name: Accepts e-mail marketing
    condition: customer.email != () && customer.consents.marketing_email
  - id: families
    name: Families
    condition: associates.len() >= 2
";

/// One product of the catalogue.
#[derive(Debug, Clone)]
pub struct Product {
    /// `P00000` to `P01999`.
    pub code: String,
    /// Unit price.
    pub price: f64,
    /// Its department taxonomy, `d0` to `d11`.
    pub department: String,
    /// Its brand, `b0` to `b39`.
    pub brand: String,
}

/// A catalogue of `size` products with prices from 0.50 to 40.
pub fn catalogue(size: usize, rng: &mut impl Rng) -> Vec<Product> {
    (0..size)
        .map(|n| Product {
            code: format!("P{n:05}"),
            price: f64::from(rng.random_range(50u32..4_000)) / 100.0,
            department: format!("d{}", n % DEPARTMENTS),
            brand: format!("b{}", rng.random_range(0..BRANDS)),
        })
        .collect()
}

/// A cart line of `product` as the till sends it: only code, quantity and
/// price when the Company's catalogue holds the Product, else with its
/// department and brand too.
fn line(product: &Product, quantity: u32, described: bool) -> Value {
    if !described {
        return json!({
            "product_code": product.code,
            "quantity": quantity,
            "price": product.price,
        });
    }
    json!({
        "product_code": product.code,
        "quantity": quantity,
        "price": product.price,
        "taxonomies": [product.department],
        "features": { "brand": product.brand },
    })
}

/// The catalogue as a CSV file of `loyalty catalog import`: each Product
/// with its department and brand features.
pub fn catalogue_csv(catalogue: &[Product]) -> String {
    let mut csv = String::from("code,name,price,features\n");
    for product in catalogue {
        csv.push_str(&format!(
            "{code},Product {code},{price:.2},department:{department}|brand:{brand}\n",
            code = product.code,
            price = product.price,
            department = product.department,
            brand = product.brand,
        ));
    }
    csv
}

/// The taxonomies of the catalogue: `department` (`d0`...) and `brand`
/// (`b0`...), with their features' slugs.
pub fn catalogue_taxonomies() -> [(&'static str, Vec<String>); 2] {
    [
        (
            "department",
            (0..DEPARTMENTS).map(|d| format!("d{d}")).collect(),
        ),
        ("brand", (0..BRANDS).map(|b| format!("b{b}")).collect()),
    ]
}

/// The body of a till's cart: `lines` lines of the catalogue (a count drawn
/// from the range), for the Customer `customer_code`, recorded under `code`;
/// `described`: the lines carry their departments and brands (the catalogue
/// is not in the store).
pub fn cart_body(
    catalogue: &[Product],
    customer_code: &str,
    code: &str,
    coupons: &[&str],
    described: bool,
    lines: std::ops::RangeInclusive<usize>,
    rng: &mut impl Rng,
) -> String {
    let count = rng.random_range(lines);
    let lines: Vec<Value> = (0..count)
        .map(|_| {
            let product = &catalogue[rng.random_range(0..catalogue.len())];
            line(product, rng.random_range(1..=3), described)
        })
        .collect();
    json!({
        "customer_code": customer_code,
        "code": code,
        "location_code": format!("store-{}", rng.random_range(1..=40)),
        "lines": lines,
        "coupons_desired": coupons,
    })
    .to_string()
}

/// The code of the `n`th benchmark Customer.
pub fn customer_code(n: u64) -> String {
    format!("C{n:07}")
}

/// The e-mail of the `n`th seeded Customer.
pub fn customer_email(n: u64) -> String {
    format!("customer{n}@example.com")
}

/// The first name of the `n`th seeded Customer: a thousand names, shared.
pub fn customer_first_name(n: u64) -> String {
    format!("Name{}", n % 1_000)
}

/// The `segment` attribute of the `n`th seeded Customer: two hundred
/// segments, shared.
pub fn customer_segment(n: u64) -> String {
    format!("s{}", n % 200)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::catalog::Catalog;
    use rand::SeedableRng;

    /// Every generated file compiles: a benchmark never runs against a
    /// Company whose campaigns failed to load.
    #[test]
    fn the_generated_company_loads() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let company = dir.path().join("bench");
        std::fs::create_dir_all(company.join("campaigns")).expect("campaign directory");
        for (name, text) in campaign_files(50) {
            std::fs::write(company.join("campaigns").join(name), text).expect("campaign file");
        }
        std::fs::write(company.join("segments.yaml"), SEGMENTS).expect("segments file");
        let (catalog, report) = Catalog::load(dir.path());
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        assert_eq!(catalog.company("bench").campaigns.len(), 55);
    }

    #[test]
    fn carts_are_valid_json_with_lines_from_the_catalogue() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let products = catalogue(100, &mut rng);
        for described in [true, false] {
            let body: Value = serde_json::from_str(&cart_body(
                &products,
                "C0000001",
                "B-1",
                &[],
                described,
                1..=15,
                &mut rng,
            ))
            .expect("JSON");
            let lines = body["lines"].as_array().expect("lines");
            assert!((1..=15).contains(&lines.len()));
            assert!(lines.iter().all(|l| {
                l["product_code"]
                    .as_str()
                    .is_some_and(|c| products.iter().any(|p| p.code == c))
                    && l.get("features").is_some() == described
            }));
        }
    }

    #[test]
    fn the_catalogue_file_is_what_an_import_reads() {
        let products = catalogue(100, &mut rand::rngs::StdRng::seed_from_u64(7));
        let rows = crate::resources::master_data::import::rows::rows(
            crate::resources::master_data::import::rows::ImportFormat::Csv,
            &catalogue_csv(&products),
        )
        .expect("a valid file");
        assert_eq!(rows.len(), 100);
        let taxonomies = catalogue_taxonomies();
        for (row, product) in rows.iter().zip(&products) {
            let features = &row.1["features"];
            assert_eq!(features["department"][0], product.department.as_str());
            assert_eq!(features["brand"][0], product.brand.as_str());
            assert!(taxonomies[0].1.contains(&product.department));
            assert!(taxonomies[1].1.contains(&product.brand));
        }
    }
}
