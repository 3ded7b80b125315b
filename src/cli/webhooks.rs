//! `loyalty webhooks ...`: a Company's webhook endpoints, through the back
//! office (or the store itself when no server runs).

use crate::cli::back_office::back_office;
use crate::cli::back_office::print_table;
use crate::cli::print_json;
use crate::config::WebhooksCommand;
use crate::error::ApiResult;
use crate::resources::webhooks::model::EndpointWithSecret;
use crate::resources::webhooks::model::NewWebhookEndpoint;
use crate::resources::webhooks::model::WebhookEndpoint;
use crate::resources::webhooks::model::WebhookEndpointChange;

/// Runs a `loyalty webhooks` command.
pub(crate) async fn webhooks(command: WebhooksCommand) -> ApiResult<()> {
    match command {
        WebhooksCommand::Create {
            company,
            url,
            events,
            description,
            back_office: args,
        } => {
            let new = NewWebhookEndpoint {
                url,
                events,
                description,
                enabled: None,
            };
            let office = back_office(&args, None).await?;
            let created = office.create_webhook_endpoint(&company, new).await?;
            if args.json {
                return print_json(&created);
            }
            print_secret("created", &created);
            Ok(())
        }
        WebhooksCommand::List {
            company,
            back_office: args,
        } => {
            let endpoints = back_office(&args, None)
                .await?
                .webhook_endpoints(&company)
                .await?;
            if args.json {
                return print_json(&serde_json::json!({ "endpoints": endpoints }));
            }
            let columns = [("ID", 30), ("ENABLED", 8), ("EVENTS", 40), ("URL", 0)];
            let rows = endpoints.iter().map(|endpoint| {
                vec![
                    endpoint.id.clone(),
                    if endpoint.enabled { "yes" } else { "no" }.to_string(),
                    endpoint.events.join(","),
                    endpoint.url.clone(),
                ]
            });
            print_table(&columns, rows);
            Ok(())
        }
        WebhooksCommand::Update {
            company,
            id,
            url,
            events,
            description,
            enabled,
            back_office: args,
        } => {
            let change = WebhookEndpointChange {
                url,
                events,
                description,
                enabled,
            };
            let endpoint = back_office(&args, None)
                .await?
                .update_webhook_endpoint(&company, &id, change)
                .await?;
            if args.json {
                return print_json(&endpoint);
            }
            println!("{}", describe(&endpoint));
            Ok(())
        }
        WebhooksCommand::RotateSecret {
            company,
            id,
            back_office: args,
        } => {
            let office = back_office(&args, None).await?;
            let rotated = office.rotate_webhook_secret(&company, &id).await?;
            if args.json {
                return print_json(&rotated);
            }
            print_secret("given a new secret", &rotated);
            Ok(())
        }
        WebhooksCommand::Delete {
            company,
            id,
            back_office: args,
        } => {
            back_office(&args, None)
                .await?
                .delete_webhook_endpoint(&company, &id)
                .await?;
            if args.json {
                return print_json(&serde_json::json!({ "id": id, "deleted": true }));
            }
            println!("Webhook endpoint {id} of {company} deleted.");
            Ok(())
        }
    }
}

/// One line saying what `endpoint` receives and where.
fn describe(endpoint: &WebhookEndpoint) -> String {
    let state = if endpoint.enabled { "" } else { " (disabled)" };
    format!(
        "Webhook endpoint {} of {}{state}: {} to {}",
        endpoint.id,
        endpoint.company,
        endpoint.events.join(", "),
        endpoint.url
    )
}

/// Prints `shown` (an endpoint `what`) and its secret, said to be shown
/// only now.
fn print_secret(what: &str, shown: &EndpointWithSecret) {
    println!("{} {what}.", describe(&shown.endpoint));
    println!("Signing secret (shown only now; keep it with the receiver):");
    println!("{}", shown.secret);
}
