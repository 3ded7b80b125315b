//! Authors simulate an Instant Win's draws before launching it.

use super::*;

#[test]
fn authors_simulate_draws_before_launch() {
    let dir = tempfile::tempdir().unwrap();
    write_campaigns(dir.path());
    let scratch = dir.path().join("demo").join("scratch.yaml");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
            .args(["campaigns", "draws"])
            .args(args)
            .output()
            .unwrap()
    };
    let output = run(&[
        scratch.to_str().unwrap(),
        "--runs",
        "500",
        "--seed",
        "3",
        "--json",
    ]);
    assert!(output.status.success(), "{output:?}");
    let simulation: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(simulation["runs"], 500);
    assert_eq!(simulation["prizes"][0]["won"], 1, "stock 1: one win");
    assert_eq!(
        simulation["prizes"][0]["ran_out_at"], 1,
        "weight 1: the first draw wins it"
    );
    assert_eq!(
        simulation["prizes"][1]["drawn"], 499,
        "then everything is No Prize"
    );
    let again = run(&[
        scratch.to_str().unwrap(),
        "--runs",
        "500",
        "--seed",
        "3",
        "--json",
    ]);
    assert_eq!(
        again.stdout, output.stdout,
        "the same seed gives the same draws"
    );

    let text = run(&[
        "campaigns/demo/campaigns/scratch-and-win.yaml",
        "--runs",
        "2000",
    ]);
    assert!(text.status.success(), "{text:?}");
    let shown = String::from_utf8(text.stdout).unwrap();
    assert!(shown.contains("consistent with the weights"), "{shown}");

    let not_a_draw = run(&[dir
        .path()
        .join("demo")
        .join("reward.yaml")
        .to_str()
        .unwrap()]);
    assert!(!not_a_draw.status.success());
    assert!(String::from_utf8_lossy(&not_a_draw.stderr).contains("not an instant_win"));
}
