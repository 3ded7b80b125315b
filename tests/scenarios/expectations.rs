//! What a scenario's `expect` may say and how a failed one reads: subsets
//! that survive the Company's other campaigns, explanations picked by rule
//! id, only the differing paths printed, and snapshots that do not depend
//! on where the campaigns folder lies.

use std::path::Path;
use std::process::Output;

const POINTS: &str = "id: 1\nkind: points\nname: Points\non: cart\npoints: { per_amount: 1 }\n";
const BONUS: &str = "id: 2\nkind: points\nname: Bonus\non: cart\npoints: { fixed: 5 }\n";

/// A scenario of one cart in Company `grocer`, expecting `expect` (YAML
/// under `body:`).
fn scenario(expect: &str) -> String {
    format!(
        "name: One cart\ncompany: grocer\nclock: 2026-11-27T10:00:00Z\ncustomers:\n  ana: {{ email: ana@example.com }}\nsteps:\n  - name: the cart\n    post: /carts/realtime\n    body: {{ customer_id: \"{{{{ana}}}}\", code: C-1, lines: [{{ product_code: WINE, quantity: 1, price: 10.0 }}] }}\n    expect:\n      body:\n{expect}"
    )
}

const SUBSET: &str = "        effects: { contains: [{ type: points, rule_id: 1, points: 10 }] }\n        explanations: { 1: { applied: true } }\n";
const WHOLE: &str = "        effects: [{ type: points, rule_id: 1, points: 10 }]\n        cart: { points_earned: 12 }\n";

/// `loyalty scenarios run FILE --campaigns CAMPAIGNS --snapshots SNAPSHOTS`.
fn run(file: &Path, campaigns: &Path, snapshots: &Path, update: bool) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"));
    command
        .args(["scenarios", "run"])
        .arg(file)
        .arg("--campaigns")
        .arg(campaigns)
        .arg("--snapshots")
        .arg(snapshots)
        .env("LOYALTY_LOG", "error");
    if update {
        command.arg("--update");
    }
    command.output().unwrap()
}

#[test]
fn a_subset_expectation_survives_a_new_campaign_and_a_failure_prints_only_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let campaigns = dir.path().join("campaigns");
    let company = campaigns.join("grocer");
    std::fs::create_dir_all(&company).unwrap();
    std::fs::write(company.join("points.yaml"), POINTS).unwrap();
    let subset = dir.path().join("subset.yaml");
    std::fs::write(&subset, scenario(SUBSET)).unwrap();
    let whole = dir.path().join("whole.yaml");
    std::fs::write(&whole, scenario(WHOLE)).unwrap();
    let snapshots = dir.path().join("snapshots");
    let output = run(&subset, &campaigns, &snapshots, true);
    assert!(output.status.success(), "{output:?}");

    // Another campaign of the Company gives its own effect too.
    std::fs::write(company.join("bonus.yaml"), BONUS).unwrap();
    let output = run(&subset, &campaigns, &dir.path().join("none"), false);
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{shown}");

    // The whole-array expectation names each difference on its own line,
    // and the campaigns one line each, not the answer.
    let output = run(&whole, &campaigns, &dir.path().join("none"), false);
    assert!(!output.status.success());
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(
        shown.contains("\n  .cart.points_earned is 15, not 12\n"),
        "{shown}"
    );
    assert!(
        shown.contains("\n  .effects has 2 elements, not 1\n"),
        "{shown}"
    );
    assert!(
        shown.contains("\n    1 applied\n    2 applied\n"),
        "{shown}"
    );
    assert!(
        !shown.contains("created_at"),
        "the answer is not printed: {shown}"
    );
}

#[test]
fn snapshots_do_not_depend_on_where_the_campaigns_folder_lies() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path().join("here").join("campaigns");
    std::fs::create_dir_all(here.join("grocer")).unwrap();
    std::fs::write(here.join("grocer").join("points.yaml"), POINTS).unwrap();
    std::fs::write(
        here.join("grocer").join("sundays.yaml"),
        "id: 3\nkind: points\nname: Sundays\non: cart\nrecurrence_days: [sunday]\npoints: { fixed: 9 }\n",
    )
    .unwrap();
    // Explanations are kept in the snapshot: they name their files.
    let file = dir.path().join("explained.yaml");
    std::fs::write(
        &file,
        scenario("        explanations: { 1: { applied: true }, 3: { applied: false } }\n"),
    )
    .unwrap();
    let snapshots = dir.path().join("snapshots");
    let output = run(&file, &here, &snapshots, true);
    assert!(output.status.success(), "{output:?}");
    let recorded =
        std::fs::read_to_string(snapshots.join("scenarios__scenario_explained.snap")).unwrap();
    assert!(
        recorded.contains("\"{{campaigns}}/grocer/sundays.yaml:5\""),
        "{recorded}"
    );
    assert!(
        !recorded.contains(&here.display().to_string()),
        "{recorded}"
    );

    let there = dir.path().join("moved").join("elsewhere");
    std::fs::create_dir_all(&there).unwrap();
    std::fs::rename(&here, there.join("campaigns")).unwrap();
    let output = run(&file, &there.join("campaigns"), &snapshots, false);
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{shown}");
}
