//! The back-office commands: `keys ...`, `companies ...`, `instant-wins ...`
//! and `vouchers issue`, through the back-office API.

use std::path::Path;

use crate::cli::back_office_client::BackOffice;
use crate::cli::init_logging;
use crate::cli::print_json;
use crate::config::BackOfficeArgs;
use crate::config::CompaniesCommand;
use crate::config::InstantWinsCommand;
use crate::config::KeysCommand;
use crate::config::LocaleArgs;
use crate::config::LogFormat;
use crate::config::VouchersCommand;
use crate::config::{CatalogCommand, CatalogKindArg, ImportFormatArg};
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::resources::companies::keys::NewKey;
use crate::resources::companies::model::ApiKey;
use crate::resources::companies::model::Company;
use crate::resources::companies::model::CreatedApiKey;
use crate::resources::companies::model::RateLimits;
use crate::resources::companies::service::LocaleChange;
use crate::resources::companies::service::NewCompany;
use crate::resources::master_data::import::CatalogKind;
use crate::resources::master_data::import::rows::ImportFormat;
use crate::resources::vouchers::bulk::BulkIssue;
use crate::resources::vouchers::bulk::BulkIssued;
use crate::resources::vouchers::bulk::MAX_BULK_ISSUE;

/// The back office `args` name, logging warnings only; where it opens the
/// store itself, with the campaign files of `campaigns` loaded.
pub(crate) async fn back_office(
    args: &BackOfficeArgs,
    campaigns: Option<&Path>,
) -> ApiResult<BackOffice> {
    init_logging("warn", LogFormat::Text);
    BackOffice::connect_with_rules(args, campaigns).await
}

pub(crate) async fn keys(command: KeysCommand) -> ApiResult<()> {
    match command {
        KeysCommand::Create {
            company,
            description,
            disabled,
            back_office: args,
        } => {
            let created = back_office(&args, None)
                .await?
                .create_key(NewKey {
                    company,
                    description,
                    enabled: !disabled,
                })
                .await?;
            print_created_key(&created, args.json)
        }
        KeysCommand::List {
            company,
            back_office: args,
        } => {
            let keys = back_office(&args, None)
                .await?
                .keys(company.as_deref())
                .await?;
            if args.json {
                print_json(&serde_json::json!({ "keys": keys }))
            } else {
                print_key_table(&keys);
                Ok(())
            }
        }
        KeysCommand::Disable {
            key,
            back_office: args,
        } => set_enabled(&key, false, &args).await,
        KeysCommand::Enable {
            key,
            back_office: args,
        } => set_enabled(&key, true, &args).await,
    }
}

async fn set_enabled(key: &str, enabled: bool, args: &BackOfficeArgs) -> ApiResult<()> {
    let updated = back_office(args, None)
        .await?
        .set_key_enabled(key, enabled)
        .await?;
    if args.json {
        print_json(&updated)
    } else {
        let state = if updated.enabled {
            "enabled"
        } else {
            "disabled"
        };
        println!("API key {} is {state}.", updated.key);
        Ok(())
    }
}

fn print_created_key(created: &CreatedApiKey, json: bool) -> ApiResult<()> {
    if json {
        return print_json(created);
    }
    let key = &created.key;
    println!(
        "Created API key for Company {} ({}){}.\n\n  X-Api-Key:    {}\n  X-Api-Secret: {}\n\n\
         The secret is shown only now and cannot be recovered; store it safely.",
        key.company,
        key.environment,
        if key.enabled { "" } else { ", disabled" },
        key.key,
        created.secret
    );
    Ok(())
}

fn print_key_table(keys: &[ApiKey]) {
    let rows = keys.iter().map(|key| {
        let last_used = key.last_used_at.map_or_else(
            || "never".to_string(),
            |at| at.format("%Y-%m-%d %H:%M").to_string(),
        );
        let yes_no = |flag: bool| if flag { "yes" } else { "no" }.to_string();
        vec![
            key.key.clone(),
            key.company.clone(),
            key.environment.to_string(),
            yes_no(key.enabled),
            yes_no(key.system),
            last_used,
            key.description.clone(),
        ]
    });
    let columns = [
        ("KEY", 36),
        ("COMPANY", 16),
        ("ENV", 10),
        ("ENABLED", 8),
        ("SYSTEM", 6),
        ("LAST USED", 17),
        ("DESCRIPTION", 0),
    ];
    print_table(&columns, rows);
}

/// Prints `rows` as a table under the headers of `columns`, each column
/// padded to its width (the last one not).
pub(crate) fn print_table(columns: &[(&str, usize)], rows: impl Iterator<Item = Vec<String>>) {
    let line = |cells: Vec<String>| {
        let last = cells.len().saturating_sub(1);
        let padded: Vec<String> = cells
            .into_iter()
            .zip(columns)
            .enumerate()
            .map(|(n, (cell, (_, width)))| {
                if n == last {
                    cell
                } else {
                    format!("{cell:<width$}")
                }
            })
            .collect();
        println!("{}", padded.join(" "));
    };
    line(columns.iter().map(|(name, _)| name.to_string()).collect());
    rows.for_each(line);
}

pub(crate) async fn companies(command: CompaniesCommand) -> ApiResult<()> {
    match command {
        CompaniesCommand::Create {
            slug,
            environment,
            language,
            languages,
            rate_limits,
            locale,
            back_office: args,
        } => {
            let rate_limits = match rate_limits.as_deref() {
                None => None,
                Some([critical, moderate, low]) => Some(RateLimits {
                    critical: *critical,
                    moderate: *moderate,
                    low: *low,
                }),
                Some(_) => {
                    return Err(ApiError::invalid(
                        "--rate-limits takes three numbers: tier 1, tier 2 and tier 3, e.g. 60,25,10",
                    ));
                }
            };
            let company = back_office(&args, None)
                .await?
                .create_company(NewCompany {
                    slug,
                    environment: environment.into(),
                    language: Some(language),
                    languages,
                    rate_limits,
                    locale: locale.into(),
                })
                .await?;
            if args.json {
                print_json(&company)
            } else {
                println!(
                    "Created Company {} ({}), languages: {} (default {}), currency {} ({} decimals), time zone {}.",
                    company.slug,
                    company.environment,
                    company.languages.join(","),
                    company.default_language,
                    company.currency,
                    company.minor_units,
                    company.time_zone
                );
                Ok(())
            }
        }
        CompaniesCommand::Limits {
            slug,
            critical,
            moderate,
            low,
            back_office: args,
        } => {
            let limits = RateLimits {
                critical,
                moderate,
                low,
            };
            let company = back_office(&args, None)
                .await?
                .set_rate_limits(&slug, limits)
                .await?;
            if args.json {
                print_json(&company)
            } else {
                println!(
                    "Company {} now allows {}/{}/{} requests per second in tiers 1/2/3.",
                    company.slug, critical, moderate, low
                );
                Ok(())
            }
        }
        CompaniesCommand::Update {
            slug,
            locale,
            back_office: args,
        } => {
            let company = back_office(&args, None)
                .await?
                .set_locale(&slug, locale.into())
                .await?;
            if args.json {
                print_json(&company)
            } else {
                println!(
                    "Company {} now counts in {} ({} decimals), time zone {}.",
                    company.slug, company.currency, company.minor_units, company.time_zone
                );
                Ok(())
            }
        }
        CompaniesCommand::List { back_office: args } => {
            let companies = back_office(&args, None).await?.companies().await?;
            if args.json {
                print_json(&serde_json::json!({ "companies": companies }))
            } else {
                print_company_table(&companies);
                Ok(())
            }
        }
    }
}

pub(crate) async fn instant_wins(command: InstantWinsCommand) -> ApiResult<()> {
    let InstantWinsCommand::Assign {
        company,
        rule,
        customers,
        campaigns,
        back_office: args,
    } = command;
    let vouchers = back_office(&args, Some(&campaigns))
        .await?
        .assign_instant_win(&company, rule, &customers)
        .await?;
    if args.json {
        return print_json(&serde_json::json!({ "vouchers": vouchers }));
    }
    println!(
        "{:<28} {:<20} {:<22} SEND",
        "CUSTOMER", "VOUCHER CODE", "ASSIGNMENT"
    );
    for voucher in &vouchers {
        println!(
            "{:<28} {:<20} {:<22} {}",
            voucher.customer_id,
            voucher.code,
            voucher.loyalty_rule_history_id.as_deref().unwrap_or("-"),
            voucher.campaign_history_id.as_deref().unwrap_or("-")
        );
    }
    Ok(())
}

/// Customers sent per request of a bulk issue by list.
const CUSTOMERS_PER_REQUEST: usize = 1_000;

pub(crate) async fn vouchers(command: VouchersCommand) -> ApiResult<()> {
    let VouchersCommand::Issue {
        company,
        coupon,
        source,
        count,
        customers,
        campaigns,
        back_office: args,
    } = command;
    let office = back_office(&args, Some(&campaigns)).await?;
    let parts: Vec<BulkIssue> = match (count, customers) {
        (Some(count), None) => (0..count)
            .step_by(MAX_BULK_ISSUE as usize)
            .map(|first| BulkIssue {
                source: source.clone(),
                count: Some(MAX_BULK_ISSUE.min(count - first)),
                first: Some(first),
                customer_ids: None,
            })
            .collect(),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| ApiError::invalid(format!("cannot read {}: {e}", path.display())))?;
            let ids: Vec<String> = text
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty() && !line.starts_with('#'))
                .map(str::to_string)
                .collect();
            if ids.is_empty() {
                return Err(ApiError::invalid(format!(
                    "{} names no Customer",
                    path.display()
                )));
            }
            ids.chunks(CUSTOMERS_PER_REQUEST)
                .map(|chunk| BulkIssue {
                    source: source.clone(),
                    count: None,
                    first: None,
                    customer_ids: Some(chunk.to_vec()),
                })
                .collect()
        }
        _ => {
            return Err(ApiError::invalid(
                "name --count N or --customers FILE, one of them",
            ));
        }
    };
    let started = std::time::Instant::now();
    let mut all = BulkIssued {
        vouchers: Vec::new(),
        refused: Vec::new(),
    };
    for part in parts {
        let mut issued = office.bulk_issue(&company, coupon, part).await?;
        all.vouchers.append(&mut issued.vouchers);
        all.refused.append(&mut issued.refused);
        eprint!("\r{} Vouchers issued", all.vouchers.len());
    }
    eprintln!(
        "\r{} Vouchers of Coupon {coupon} issued as `{source}` in {:.1} s; {} Customers refused",
        all.vouchers.len(),
        started.elapsed().as_secs_f64(),
        all.refused.len()
    );
    if args.json {
        return print_json(&all);
    }
    let mut out = String::with_capacity(all.vouchers.len() * 48);
    out.push_str("code,customer_id\n");
    for voucher in &all.vouchers {
        out.push_str(&format!("{},{}\n", voucher.code, voucher.customer_id));
    }
    print!("{out}");
    for refused in &all.refused {
        eprintln!(
            "{}: {} ({})",
            refused.customer_id, refused.code, refused.error
        );
    }
    Ok(())
}

impl From<LocaleArgs> for LocaleChange {
    fn from(args: LocaleArgs) -> Self {
        LocaleChange {
            currency: args.currency,
            minor_units: args.minor_units,
            time_zone: args.time_zone,
        }
    }
}

fn print_company_table(companies: &[Company]) {
    let rows = companies.iter().map(|company| {
        let limits = &company.rate_limits;
        vec![
            company.slug.clone(),
            company.environment.to_string(),
            company.default_language.clone(),
            format!("{}/{}/{}", limits.critical, limits.moderate, limits.low),
            format!("{} ({})", company.currency, company.minor_units),
            company.time_zone.clone(),
            company.languages.join(","),
        ]
    });
    let columns = [
        ("SLUG", 24),
        ("ENV", 10),
        ("DEFAULT", 8),
        ("RPS T1/T2/T3", 12),
        ("CURRENCY", 9),
        ("TIME ZONE", 20),
        ("LANGUAGES", 0),
    ];
    print_table(&columns, rows);
}

/// `loyalty catalog import`: the file sent whole, every problem printed as
/// FILE:LINE: message.
pub(crate) async fn catalog(command: CatalogCommand) -> ApiResult<()> {
    let CatalogCommand::Import {
        company,
        kind,
        format,
        file,
        back_office: args,
    } = command;
    let format = match format {
        Some(ImportFormatArg::Csv) => ImportFormat::Csv,
        Some(ImportFormatArg::JsonLines) => ImportFormat::JsonLines,
        None => match file.extension().and_then(|e| e.to_str()) {
            Some("csv") => ImportFormat::Csv,
            Some("jsonl" | "ndjson" | "json") => ImportFormat::JsonLines,
            _ => {
                return Err(ApiError::invalid(format!(
                    "{}: name its format with --format csv or --format json-lines",
                    file.display()
                )));
            }
        },
    };
    let kind = match kind {
        CatalogKindArg::Products => CatalogKind::Products,
        CatalogKindArg::Locations => CatalogKind::Locations,
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| ApiError::invalid(format!("cannot read {}: {e}", file.display())))?;
    let office = back_office(&args, None).await?;
    let started = std::time::Instant::now();
    match office.import_catalog(&company, kind, format, text).await {
        Ok(report) => {
            eprintln!(
                "{}: {} created, {} updated in {:.1} s",
                file.display(),
                report.created,
                report.updated,
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Err(mut error) => {
            // Each `line N: ...` as FILE:N: ..., as compilers print it.
            error.message = error
                .message
                .lines()
                .map(|line| match line.strip_prefix("line ") {
                    Some(rest) => format!("{}:{rest}", file.display()),
                    None => line.to_string(),
                })
                .collect::<Vec<_>>()
                .join("\n");
            Err(error)
        }
    }
}
