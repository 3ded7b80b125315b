//! What `loyalty scenarios run` reports: a failing step with its line and a
//! non-zero exit, and answers that had no snapshot to compare with.

#[test]
fn a_failing_scenario_names_its_step_and_line_and_exits_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.yaml");
    std::fs::write(
        &file,
        "name: Broken\nclock: 2026-05-04T09:30:00Z\ncustomers:\n  ana: { email: ana@example.com }\nsteps:\n  - name: expects a wrong balance\n    get: /customers/{{ana}}/points\n    expect:\n      body: { points: 5 }\n",
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
        .args(["scenarios", "run"])
        .arg(&file)
        .env("LOYALTY_LOG", "error")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(
        shown.contains("broken.yaml:6:") && shown.contains(".points is 0, not 5"),
        "{shown}"
    );
    assert!(shown.contains("0 passed, 1 failed"), "{shown}");
    // The summary names the failed expectation, not an error code.
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("1 scenario(s) failed: ") && said.contains(".points is 0, not 5"),
        "{said}"
    );
    assert!(!said.contains("invalid_request"), "{said}");
}

#[test]
fn a_scenario_without_a_snapshot_says_its_answers_were_not_compared() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fresh.yaml");
    std::fs::write(
        &file,
        "name: Fresh\nclock: 2026-05-04T09:30:00Z\ncustomers:\n  ana: { email: ana@example.com }\nsteps:\n  - get: /customers/{{ana}}/points\n",
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
        .args(["scenarios", "run"])
        .arg(&file)
        .arg("--snapshots")
        .arg(dir.path().join("no-snapshots"))
        .env("LOYALTY_LOG", "error")
        .output()
        .unwrap();
    assert!(output.status.success());
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(
        shown.contains("its answers were not compared: there is no snapshot at"),
        "{shown}"
    );
    assert!(
        shown.contains("1 scenario(s) passed without their answers being compared"),
        "{shown}"
    );
}
