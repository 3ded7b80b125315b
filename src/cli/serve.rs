//! `loyalty serve`: the server, its first-run bootstrap and a clean stop.

use crate::cli::init_held_logging;
use crate::config::ServeArgs;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::http::ApiOptions;
use crate::http::back_office::OperatorToken;
use crate::resources::companies::bootstrap::Bootstrap;
use crate::secrets::random_hex;
use crate::server;
use crate::server::ServerSettings;
use crate::storage::RemoteAuth;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

pub(crate) async fn serve(args: ServeArgs) -> ApiResult<()> {
    // Held while starting: a first start's welcome comes first.
    let log = init_held_logging(&args.log_level, args.log_format);
    log.release_later(if crate::storage::open::is_remote(&args.store.url) {
        crate::cli::held_log::REMOTE_HOLD
    } else {
        crate::cli::held_log::EMBEDDED_HOLD
    });
    let served = serve_with(args, &log).await;
    log.release();
    served
}

async fn serve_with(args: ServeArgs, log: &crate::cli::held_log::HeldLog) -> ApiResult<()> {
    let admin_token = match &args.operator.admin_token {
        Some(token) => token.clone(),
        None => write_new_token(&args.operator.admin_token_file)?,
    };
    let settings = ServerSettings {
        listen: args.listen,
        admin_listen: args.admin_listen,
        admin_token: OperatorToken(admin_token),
        store_url: args.store.url.clone(),
        remote_auth: args.store.user.clone().map(|username| RemoteAuth {
            username,
            password: args.store.password.clone().unwrap_or_default(),
        }),
        store_connections: args.store.connections,
        serve_environment: args.environment.map(Into::into),
        api_options: ApiOptions {
            max_body_bytes: args.max_body_bytes,
            request_timeout: Duration::from_millis(args.request_timeout_ms),
            max_in_flight: args.max_in_flight,
            max_queued: args.max_queued,
        },
        shutdown_timeout: Duration::from_secs(args.shutdown_timeout),
        campaigns: args.campaigns.clone(),
        draw_seed: args.draw_seed,
        event_dates: crate::pipeline::dates::EventDates {
            max_ahead: chrono::Duration::seconds(args.max_date_ahead_seconds.into()),
            max_age: chrono::Duration::days(args.max_date_age_days.into()),
        },
        clock: std::sync::Arc::default(),
        deliver_prizes: !args.hold_prize_delivery,
        unknown_codes_per_minute: args.unknown_codes_per_minute,
        customer_cache: args.customer_cache,
        capture_batches: args.capture_batches.clone(),
        webhooks: crate::resources::webhooks::WebhookSettings {
            allow_private: args.webhooks_allow_private,
            keep_settled_days: args.webhooks_keep_days,
        },
    };
    let running = server::start(settings).await?;
    if let Some(bootstrap) = &running.bootstrap {
        print_bootstrap(bootstrap, running.api_addr);
        running.services.bootstrap_shown(bootstrap).await?;
    }
    log.release();
    wait_for_stop_signal().await;
    tracing::info!("stopping: finishing in-flight requests");
    running.shutdown().await?;
    tracing::info!("stopped");
    Ok(())
}

/// Generates an operator token and writes it, readable by the owner only.
fn write_new_token(path: &Path) -> ApiResult<String> {
    let token = random_hex(32);
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| ApiError::invalid(format!("cannot create {}: {e}", parent.display())))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .map_err(|e| ApiError::invalid(format!("cannot write {}: {e}", path.display())))?;
    file.write_all(token.as_bytes())
        .map_err(|e| ApiError::invalid(format!("cannot write {}: {e}", path.display())))?;
    Ok(token)
}

fn print_bootstrap(bootstrap: &Bootstrap, api_addr: std::net::SocketAddr) {
    let key = &bootstrap.key;
    let host = if api_addr.ip().is_unspecified() {
        format!("127.0.0.1:{}", api_addr.port())
    } else {
        api_addr.to_string()
    };
    let created = if bootstrap.replaced.is_empty() {
        "Created the demo Company (sandbox) and its system API key.".to_string()
    } else {
        format!(
            "A new system API key for the demo Company: the secret of {} was never shown\n\
             (an earlier start stopped before printing it), so that key is disabled.",
            bootstrap.replaced.join(", ")
        )
    };
    println!(
        "{created}\n\
         The secret is shown only this once; store it safely.\n\n  \
         X-Api-Key:    {}\n  X-Api-Secret: {}\n\nTry it:\n  \
         curl -s http://{host}/check -H 'X-Api-Key: {}' -H 'X-Api-Secret: {}' -H 'X-Api-Version: 1'\n",
        key.key.key, key.secret, key.key.key, key.secret
    );
}

async fn wait_for_stop_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(signal) => signal,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
