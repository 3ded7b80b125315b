//! The `loyalty` binary: parses the command line and hands it to [`loyalty::cli`].

use clap::Parser;

/// SurrealDB allocates and frees many small values per statement; with
/// glibc's allocator a third of a loaded server's CPU went to `malloc`, its
/// arena locks and consolidation (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Stack of each runtime thread: SurrealDB runs long transactions (merges,
/// carts with many lines) recursively, beyond the default 2 MiB.
const THREAD_STACK_BYTES: usize = 16 * 1024 * 1024;

fn main() -> std::process::ExitCode {
    let cli = loyalty::config::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(THREAD_STACK_BYTES)
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the runtime: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(loyalty::cli::run(cli)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {} ({})", error.message, error.code);
            std::process::ExitCode::FAILURE
        }
    }
}
