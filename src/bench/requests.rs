//! The requests each benchmark scenario sends: Customers drawn at random,
//! carts drawn from the catalogue, the `n`th request of a run always the same
//! for a seed.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use serde_json::json;

use crate::bench::BenchOptions;
use crate::bench::LARGE_CART_LINES;
use crate::bench::Scenario;
use crate::bench::company::APP_EVENT;
use crate::bench::company::COLD_PRIZE_EVENT;
use crate::bench::company::HOT_PRIZE_EVENT;
use crate::bench::company::VOUCHER_CODES;
use crate::bench::company::customer_code;
use crate::bench::company::customer_email;
use crate::bench::company::customer_first_name;
use crate::bench::company::customer_segment;
use crate::bench::load::Request;
use crate::bench::load::RequestSource;

/// The requests of `scenario`: random Customers, carts from the catalogue.
pub fn requests(scenario: Scenario, options: &BenchOptions, run_tag: &str) -> RequestSource {
    let customers = options.customers.max(1);
    let redeemers = options.redeemers.min(customers).max(1);
    let seed = options.seed;
    let catalogue = Arc::new(crate::bench::company::catalogue(
        options.products.max(1),
        &mut rand::rngs::StdRng::seed_from_u64(seed),
    ));
    let tag = run_tag.to_string();
    let described = options.catalogue_in_carts;
    let lines = options.lines.map_or(1..=15, |lines| lines..=lines);
    let rng = move |n: u64| rand::rngs::StdRng::seed_from_u64(seed ^ n.rotate_left(17));
    match scenario {
        Scenario::Check => Arc::new(|_| Request::get("/check")),
        Scenario::GetCustomer => Arc::new(move |n| {
            let code = customer_code(rng(n).random_range(0..customers));
            Request::get(format!("/customers/{code}?search_by=code"))
        }),
        Scenario::CustomerSearch => Arc::new(move |n| {
            let customer = rng(n).random_range(0..customers);
            let filters = match n % 3 {
                0 => json!({ "email": customer_email(customer) }),
                1 => json!({ "first_name": customer_first_name(customer) }),
                _ => json!({ "attributes.segment": customer_segment(customer) }),
            };
            Request::post(
                "/customers/search",
                json!({ "filters": filters, "per_page": 20 }).to_string(),
            )
        }),
        Scenario::CartsSimulate
        | Scenario::CartsRealtime
        | Scenario::CartsRealtimeVouchers
        | Scenario::CartsRealtimeLarge => {
            let path = if scenario == Scenario::CartsSimulate {
                "/carts/simulate"
            } else {
                "/carts/realtime"
            };
            // The voucher scenario's Customers hold the Vouchers (seeded).
            let (among, coupons): (u64, &'static [&'static str]) =
                if scenario == Scenario::CartsRealtimeVouchers {
                    (redeemers, &VOUCHER_CODES)
                } else {
                    (customers, &[])
                };
            let lines = match scenario {
                Scenario::CartsRealtimeLarge => LARGE_CART_LINES..=LARGE_CART_LINES,
                _ => lines.clone(),
            };
            Arc::new(move |n| {
                let mut rng = rng(n);
                let customer = customer_code(rng.random_range(0..among));
                let body = crate::bench::company::cart_body(
                    &catalogue,
                    &customer,
                    &format!("T{tag}-{n}"),
                    coupons,
                    described,
                    lines.clone(),
                    &mut rng,
                );
                Request::post(path, body)
            })
        }
        Scenario::TillSale => Arc::new(move |n| {
            // Requests 3k, 3k + 1 and 3k + 2 are one sale.
            let sale = n / 3;
            let mut rng = rng(sale);
            let customer = customer_code(rng.random_range(0..customers));
            if n % 3 == 0 {
                return Request::get(format!("/customers/{customer}?search_by=code"));
            }
            let body = crate::bench::company::cart_body(
                &catalogue,
                &customer,
                &format!("S{tag}-{sale}"),
                &[],
                described,
                lines.clone(),
                &mut rng,
            );
            let path = if n % 3 == 1 {
                "/carts/simulate"
            } else {
                "/carts/realtime"
            };
            Request::post(path, body)
        }),
        Scenario::CustomEvents => Arc::new(move |n| {
            let mut rng = rng(n);
            let screen = ["home", "offers", "wallet", "profile"][rng.random_range(0..4)];
            Request::post(
                "/custom_events",
                json!({
                    "customer_code": customer_code(rng.random_range(0..customers)),
                    "type": APP_EVENT,
                    "data": { "screen": screen },
                })
                .to_string(),
            )
        }),
        Scenario::PointsRedeem => Arc::new(move |n| {
            Request::post(
                "/points/redeem",
                json!({
                    "customer_code": customer_code(rng(n).random_range(0..redeemers)),
                    "points": 1,
                })
                .to_string(),
            )
        }),
        Scenario::InstantWinHotPrize | Scenario::InstantWinColdPrize => {
            let event = if scenario == Scenario::InstantWinHotPrize {
                HOT_PRIZE_EVENT
            } else {
                COLD_PRIZE_EVENT
            };
            Arc::new(move |n| {
                Request::post(
                    "/custom_events",
                    json!({
                        "customer_code": customer_code(rng(n).random_range(0..customers)),
                        "type": event,
                    })
                    .to_string(),
                )
            })
        }
    }
}
