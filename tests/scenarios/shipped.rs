//! Every shipped scenario passes, and its answers are snapshotted where
//! `loyalty scenarios` keeps them (`tests/snapshots/`).

use super::*;

#[tokio::test]
async fn every_shipped_scenario_passes_and_its_answers_are_snapshotted() {
    let files = Scenario::files(&[PathBuf::from("scenarios")]);
    assert!(files.len() >= 4, "scenarios ship: {files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let scenario = Scenario::parse(&file, &text)
            .unwrap_or_else(|errors| panic!("{}: {errors:?}", file.display()));
        let report = run_scenario(&scenario, Path::new("campaigns"))
            .await
            .unwrap();
        if let Some(failure) = &report.failure {
            panic!(
                "{}:{}: step `{}`:\n{}",
                file.display(),
                failure.line,
                failure.step,
                failure.details()
            );
        }
        let answers = loyalty::scenarios::snapshot::answers(&report);
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        // Where `loyalty scenarios` reads them (`scenarios::snapshot`).
        insta::with_settings!({
            snapshot_path => "../snapshots",
            prepend_module_to_snapshot => false,
        }, {
            insta::assert_json_snapshot!(format!("scenarios__scenario_{name}"), answers);
        });
    }
}
