//! An author sees which answer an edit of a campaign changed.

use super::*;

/// Copies `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn an_author_sees_which_answer_a_campaign_edit_changed() {
    let dir = tempfile::tempdir().unwrap();
    let campaigns = dir.path().join("campaigns");
    let snapshots = dir.path().join("snapshots");
    copy_dir(Path::new("campaigns"), &campaigns);
    let run = |update: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"));
        command
            .args([
                "scenarios",
                "run",
                "scenarios/demo/coffee-mornings.yaml",
                "--campaigns",
            ])
            .arg(&campaigns)
            .arg("--snapshots")
            .arg(&snapshots)
            .env("LOYALTY_LOG", "error");
        if update {
            command.arg("--update");
        }
        command.output().unwrap()
    };
    assert!(run(true).status.success());
    assert!(
        run(false).status.success(),
        "unchanged campaigns, unchanged answers"
    );

    let file = campaigns.join("demo/campaigns/coffee-mornings.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace("en: Coffee mornings", "en: Coffee hour"),
    )
    .unwrap();
    let output = run(false);
    assert!(!output.status.success());
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(
        shown.contains("the answers changed")
            && shown
                .contains(".body.effects[0].rule_name is \"Coffee hour\", not \"Coffee mornings\""),
        "{shown}"
    );
    assert!(
        run(true).status.success(),
        "--update records the new answers"
    );
    assert!(run(false).status.success());
}
