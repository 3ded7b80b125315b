//! The `loyalty` binary: parses the command line and hands it to [`loyalty::cli`].

use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = loyalty::config::Cli::parse();
    match loyalty::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {} ({})", error.message, error.code);
            std::process::ExitCode::FAILURE
        }
    }
}
