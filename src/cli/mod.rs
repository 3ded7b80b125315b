//! What each command does: the dispatch, and the commands by who runs them.
//!
//! - [`serve`]: `loyalty serve`.
//! - [`back_office`]: `keys ...`, `companies ...`, `instant-wins ...`,
//!   `vouchers issue`, `catalog import`.
//! - [`authoring`]: `scenarios run`, `bench`, `torture`.
//! - [`campaigns_check`], [`explain`], [`draws`]: `campaigns check`,
//!   `campaigns explain`, `campaigns draws`.
//! - [`back_office_client`]: the back-office API's HTTP client.

pub mod authoring;
pub mod back_office;
pub mod back_office_client;
pub mod campaigns_check;
pub mod draws;
pub mod explain;
pub mod export;
pub(crate) mod held_log;
pub mod serve;
pub mod webhooks;

use crate::cli::authoring::{bench, run_scenarios, torture};
use crate::cli::back_office::{catalog, companies, instant_wins, keys, vouchers};
use crate::cli::campaigns_check::check_campaigns;
use crate::cli::draws::draws;
use crate::cli::explain::{ExplainRequest, ExplainedEvent, company_locale, explain_campaign};
use crate::cli::serve::serve;
use crate::cli::webhooks::webhooks;
use crate::config::CampaignsCommand;
use crate::config::Cli;
use crate::config::Command;
use crate::config::LogFormat;
use crate::config::ScenariosCommand;
use crate::error::ApiError;
use crate::error::ApiResult;

/// Runs one command line; the process exits with the code it gives, or 1
/// with the error.
pub async fn run(cli: Cli) -> ApiResult<std::process::ExitCode> {
    // Scenario runs report their own failures (each failed expectation).
    if let Command::Scenarios(ScenariosCommand::Run {
        paths,
        campaigns,
        snapshots,
        update,
    }) = cli.command
    {
        return run_scenarios(paths, &campaigns, &snapshots, update).await;
    }
    dispatch(cli)
        .await
        .map(|()| std::process::ExitCode::SUCCESS)
}

/// Runs every command but `scenarios run`.
async fn dispatch(cli: Cli) -> ApiResult<()> {
    match cli.command {
        Command::Serve(args) => serve(args).await,
        Command::Keys(command) => keys(command).await,
        Command::Companies(command) => companies(command).await,
        Command::InstantWins(command) => instant_wins(command).await,
        Command::Vouchers(command) => vouchers(command).await,
        Command::Catalog(command) => catalog(command).await,
        Command::Webhooks(command) => webhooks(command).await,
        Command::Export(args) => export::export(args).await,
        Command::Scenarios(ScenariosCommand::Run { .. }) => Ok(()),
        Command::Campaigns(CampaignsCommand::Check {
            campaigns,
            back_office,
        }) => check_campaigns(&campaigns, &back_office).await,
        Command::Campaigns(CampaignsCommand::Schema) => {
            print!("{}", crate::engine::schema::campaign_schema_text());
            Ok(())
        }
        Command::Campaigns(CampaignsCommand::Explain {
            file,
            campaigns,
            cart,
            custom_event,
            trigger,
            customer,
            at,
            time_zone,
            currency,
            back_office,
        }) => {
            let event = match (cart, custom_event, trigger) {
                (Some(cart), ..) => ExplainedEvent::Cart(cart),
                (_, Some(event), _) => ExplainedEvent::CustomEvent(event),
                (.., Some(trigger)) => ExplainedEvent::Trigger(trigger),
                _ => {
                    return Err(ApiError::invalid(
                        "give --cart, --custom-event or --trigger",
                    ));
                }
            };
            let (time_zone, currency) =
                company_locale(&file, &campaigns, time_zone, currency, &back_office).await?;
            explain_campaign(ExplainRequest {
                file,
                campaigns,
                event,
                customer,
                at,
                time_zone,
                currency,
                json: back_office.json,
            })
            .await
        }
        Command::Campaigns(CampaignsCommand::Draws(args)) => draws(args).await,
        Command::Bench(args) => bench(args).await,
        Command::Torture(args) => torture(args).await,
    }
}

/// Added to a log filter for each library it does not name: (the target,
/// its directive). The store's engine logs its settings at `info` on every
/// start (about 20 lines), and poem says "listening" where the service
/// says "loyalty is serving". SurrealKV also warns "No runtime available
/// for closing the store correctly" every time a store closes (its commit
/// thread drops the last handle after the close has run), which is at every
/// clean stop and at a start after a crash (`storage/fresh_log.rs`); its
/// other warnings come with errors of their own, which stay.
const QUIET_LIBRARIES: [(&str, &str); 3] = [
    ("surrealkv", "surrealkv=warn,surrealkv::lsm=error"),
    ("surrealdb", "surrealdb=warn"),
    ("poem", "poem=warn"),
];

/// `filter` as logging uses it: [`QUIET_LIBRARIES`] added for each
/// library it does not name itself.
fn log_filter(filter: &str) -> String {
    let mut directives = filter.to_string();
    for (target, quiet) in QUIET_LIBRARIES {
        if !filter.contains(target) {
            directives.push(',');
            directives.push_str(quiet);
        }
    }
    directives
}

/// Starts logging to stderr with `filter`.
pub fn init_logging(filter: &str, format: LogFormat) {
    init_logging_to(filter, format, std::io::stderr);
}

/// Starts logging to stderr with `filter`, holding lines back until the
/// returned handle releases them.
pub(crate) fn init_held_logging(filter: &str, format: LogFormat) -> held_log::HeldLog {
    let held = held_log::HeldLog::default();
    init_logging_to(filter, format, held.clone());
    held
}

fn init_logging_to<W>(filter: &str, format: LogFormat, writer: W)
where
    W: for<'a> tracing_subscriber::fmt::MakeWriter<'a> + Send + Sync + 'static,
{
    let filter = tracing_subscriber::EnvFilter::try_new(log_filter(filter))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> ApiResult<()> {
    let text = serde_json::to_string(value).map_err(ApiError::internal)?;
    println!("{text}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::log_filter;

    #[test]
    fn libraries_are_quiet_unless_the_filter_names_them() {
        let quiet = "surrealkv=warn,surrealkv::lsm=error,surrealdb=warn,poem=warn";
        assert_eq!(log_filter("info"), format!("info,{quiet}"));
        assert_eq!(
            log_filter("info,loyalty=debug"),
            format!("info,loyalty=debug,{quiet}")
        );
        assert_eq!(
            log_filter("info,surrealkv=debug,surrealdb=info"),
            "info,surrealkv=debug,surrealdb=info,poem=warn"
        );
    }
}
