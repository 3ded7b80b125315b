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
pub mod serve;

use crate::cli::authoring::{bench, run_scenarios, torture};
use crate::cli::back_office::{catalog, companies, instant_wins, keys, vouchers};
use crate::cli::campaigns_check::check_campaigns;
use crate::cli::draws::draws;
use crate::cli::explain::{ExplainRequest, ExplainedEvent, company_locale, explain_campaign};
use crate::cli::serve::serve;
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

/// Added to a log filter that does not name SurrealKV: the embedded engine
/// warns "No runtime available for closing the store correctly" every time a
/// store closes (its commit thread drops the last handle after the close has
/// run), which is at every clean stop and at a start after a crash
/// (`storage/fresh_log.rs`). Its other warnings come with errors of their
/// own, which stay.
const QUIET_SURREALKV: &str = "surrealkv::lsm=error";

/// `filter` as logging uses it: [`QUIET_SURREALKV`] added unless it names
/// SurrealKV itself.
fn log_filter(filter: &str) -> String {
    if filter.contains("surrealkv") {
        filter.to_string()
    } else {
        format!("{filter},{QUIET_SURREALKV}")
    }
}

/// Starts logging to stderr with `filter`.
pub fn init_logging(filter: &str, format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_new(log_filter(filter))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
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
    fn surrealkv_close_warnings_are_quiet_unless_the_filter_names_surrealkv() {
        assert_eq!(log_filter("info"), "info,surrealkv::lsm=error");
        assert_eq!(
            log_filter("info,loyalty=debug"),
            "info,loyalty=debug,surrealkv::lsm=error"
        );
        assert_eq!(log_filter("info,surrealkv=debug"), "info,surrealkv=debug");
    }
}
