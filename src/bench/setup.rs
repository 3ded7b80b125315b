//! The benchmark Company before a run: created with limits no run
//! reaches, its catalogue imported (unless the carts describe their lines),
//! its Customers seeded with the points and Vouchers the runs spend.

use std::sync::Arc;
use std::time::Instant;

use anyhow::bail;
use rand::SeedableRng;
use serde_json::json;

use crate::bench::BenchOptions;
use crate::bench::COMPANY;
use crate::bench::company::FIRST_COUPON;
use crate::bench::company::VOUCHER_CODES;
use crate::bench::company::customer_code;
use crate::bench::company::customer_email;
use crate::bench::company::customer_first_name;
use crate::bench::company::customer_segment;
use crate::bench::load::Request;
use crate::bench::load::RequestSource;
use crate::bench::load::RunResult;
use crate::bench::load::Target;
use crate::bench::nodes::Nodes;
use crate::bench::server::ServerProcess;
use crate::cli::back_office_client::BackOffice;
use crate::config::BackOfficeArgs;
use crate::config::OperatorTokenArgs;
use crate::config::StoreArgs;
use crate::resources::companies::keys::NewKey;
use crate::resources::companies::model::CreatedApiKey;
use crate::resources::companies::model::Environment;
use crate::resources::companies::model::RateLimits;
use crate::resources::companies::service::NewCompany;
use crate::resources::master_data::import::CatalogKind;
use crate::resources::master_data::import::rows::ImportFormat;

/// Puts the catalogue carts are drawn from into the store: its taxonomies
/// and features through the API, its Products with `loyalty catalog
/// import`'s operation, so carts send only codes, quantities and prices.
pub(crate) async fn import_catalogue(
    target: &Target,
    office: &BackOffice,
    options: &BenchOptions,
) -> anyhow::Result<()> {
    for (taxonomy, features) in crate::bench::company::catalogue_taxonomies() {
        let created = target
            .send(&Request::post(
                "/taxonomies",
                json!({"slug": taxonomy, "name": taxonomy}).to_string(),
            ))
            .await;
        anyhow::ensure!(
            created == Some(200),
            "creating taxonomy {taxonomy}: {created:?}"
        );
        for feature in features {
            let path = format!("/taxonomies/{taxonomy}/features");
            let body = json!({"slug": feature, "name": feature}).to_string();
            let created = target.send(&Request::post(path, body)).await;
            anyhow::ensure!(
                created == Some(200),
                "creating feature {feature}: {created:?}"
            );
        }
    }
    let catalogue = crate::bench::company::catalogue(
        options.products.max(1),
        &mut rand::rngs::StdRng::seed_from_u64(options.seed),
    );
    office
        .import_catalog(
            COMPANY,
            CatalogKind::Products,
            ImportFormat::Csv,
            crate::bench::company::catalogue_csv(&catalogue),
        )
        .await
        .map_err(api_error)?;
    Ok(())
}

/// Creates the benchmark Company with limits no run reaches and a key for
/// it; the back office it was created through.
pub(crate) async fn create_company(
    nodes: &Nodes,
    dir: &std::path::Path,
    admin_token: &str,
) -> anyhow::Result<(Target, BackOffice)> {
    let (key, office) = unlimited_company(nodes.first(), dir, admin_token, COMPANY).await?;
    Ok((
        Target::spread(&nodes.api_urls(), &key.key.key, &key.secret)?,
        office,
    ))
}

/// Creates the Company `slug` with limits no run reaches and a key for it,
/// through the back office of `server`; the key and the back office.
pub async fn unlimited_company(
    server: &ServerProcess,
    dir: &std::path::Path,
    admin_token: &str,
    slug: &str,
) -> anyhow::Result<(CreatedApiKey, BackOffice)> {
    let args = BackOfficeArgs {
        admin_url: server.admin_url.clone(),
        operator: OperatorTokenArgs {
            admin_token: Some(admin_token.to_string()),
            admin_token_file: dir.join("admin.token"),
        },
        store: StoreArgs {
            url: "mem://".into(),
            user: None,
            password: None,
            connections: 1,
        },
        json: false,
    };
    let office = BackOffice::connect(&args).await.map_err(api_error)?;
    // The highest limit a Company may have: no run comes near it.
    let unlimited = 100_000;
    office
        .create_company(NewCompany {
            slug: slug.into(),
            environment: Environment::Sandbox,
            language: None,
            languages: Vec::new(),
            rate_limits: Some(RateLimits {
                critical: unlimited,
                moderate: unlimited,
                low: unlimited,
            }),
            locale: crate::resources::companies::service::LocaleChange::default(),
        })
        .await
        .map_err(api_error)?;
    let key = office
        .create_key(NewKey {
            company: slug.into(),
            description: "benchmark".into(),
            enabled: true,
        })
        .await
        .map_err(api_error)?;
    Ok((key, office))
}

fn api_error(error: crate::error::ApiError) -> anyhow::Error {
    anyhow::anyhow!("{} ({})", error.message, error.code)
}

/// Seeds the Customers, and the points and Vouchers of those who redeem.
pub(crate) async fn seed(target: &Target, options: &BenchOptions) -> anyhow::Result<()> {
    let started = Instant::now();
    let customers: RequestSource = Arc::new(|n| {
        Request::post(
            "/customers",
            json!({
                "code": customer_code(n),
                "email": customer_email(n),
                "first_name": customer_first_name(n),
                "attributes": { "segment": customer_segment(n) },
                "consents": { "marketing_email": n % 3 == 0 },
            })
            .to_string(),
        )
    });
    let seeded =
        crate::bench::load::send_all(target, options.connections, options.customers, &customers)
            .await;
    check_seeding("Customers", &seeded)?;
    eprintln!(
        "seeded {} Customers in {:.1} s ({:.0}/s)",
        options.customers,
        started.elapsed().as_secs_f64(),
        options.customers as f64 / started.elapsed().as_secs_f64()
    );
    let redeemers = options.redeemers.min(options.customers);
    let credits: RequestSource = Arc::new(|n| {
        Request::post(
            "/scores/trigger",
            json!({ "customer_code": customer_code(n), "points": 1_000_000, "description": "benchmark" })
                .to_string(),
        )
    });
    let credited =
        crate::bench::load::send_all(target, options.connections, redeemers, &credits).await;
    check_seeding("points", &credited)?;
    // The same Customers hold a Voucher of each benchmark Coupon.
    let vouchers: RequestSource = Arc::new(|n| {
        let coupons = VOUCHER_CODES.len() as u64;
        Request::post(
            "/discounts/trigger",
            json!({
                "customer_code": customer_code(n / coupons),
                "coupon_id": FIRST_COUPON + (n % coupons) as i64,
            })
            .to_string(),
        )
    });
    let issued = crate::bench::load::send_all(
        target,
        options.connections,
        redeemers * VOUCHER_CODES.len() as u64,
        &vouchers,
    )
    .await;
    check_seeding("Vouchers", &issued)?;
    Ok(())
}

fn check_seeding(what: &str, result: &RunResult) -> anyhow::Result<()> {
    if result.failures() > 0 {
        bail!(
            "seeding {what} failed: statuses {:?}, {} without answer",
            result.statuses,
            result.transport_errors
        );
    }
    Ok(())
}
