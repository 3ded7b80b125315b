//! Loads, reloads and held-back files, on files held in memory.

use super::*;
use crate::engine::held_back::Serving;
use crate::resources::segments::rules::SEGMENTS_FILE;

/// A catalog of `files`, which the test goes on editing.
fn catalog_of(files: &Arc<MemoryLoader>) -> (Catalog, LoadReport) {
    Catalog::with_loader(Box::new(files.clone()))
}

const POINTS_A: &str = "id: 1\nkind: points\nname: A\non: cart\npoints: { fixed: 5 }\n";
const POINTS_B: &str = "id: 2\nkind: points\nname: B\non: cart\npoints: { fixed: 7 }\n";

/// The names of `company`'s campaigns in force, by id.
fn names(catalog: &Catalog, company: &str) -> Vec<String> {
    catalog
        .company(company)
        .campaigns
        .iter()
        .map(|campaign| campaign.name.resolve("en", "en"))
        .collect()
}

#[test]
fn a_broken_file_serves_its_last_good_version_and_the_others_load_as_they_are() {
    let files = Arc::new(MemoryLoader::new());
    files.write("shop/a.yaml", POINTS_A);
    files.write("shop/b.yaml", POINTS_B);
    let (catalog, report) = catalog_of(&files);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.good_files.len(), 2, "both kept as last good");
    assert_eq!(report.good_files[0].file, Path::new("a.yaml"));

    // b breaks while a changes: a's edit is in force, b's last good
    // version serves in its place.
    files.write("shop/a.yaml", POINTS_A.replace("name: A", "name: A2"));
    files.write(
        "shop/b.yaml",
        "id: 2\nkind: points\nname: B\non: cart\nwhen: cart.total >\npoints: { fixed: 7 }\n",
    );
    let report = catalog.reload();
    assert_eq!(names(&catalog, "shop"), ["A2", "B"]);
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    assert_eq!(report.errors[0].line, 5);
    let held = catalog.held_back("shop").expect("b is held back");
    assert_eq!(
        held.serving(Serving::LastGood),
        [PathBuf::from("shop/b.yaml")]
    );
    assert!(held.serving(Serving::LeftOut).is_empty());
    assert!(
        held.summary().contains(
            "shop: 1 problem(s); serving the last good version of shop/b.yaml; its 1 other file(s) are in force as they are on disk"
        ),
        "{}",
        held.summary()
    );
    assert_eq!(report.good_files.len(), 1, "a's edit is kept, b's is not");

    // Fixed: everything as on disk.
    files.write("shop/b.yaml", POINTS_B.replace("name: B", "name: B2"));
    let report = catalog.reload();
    assert!(report.errors.is_empty() && catalog.held_back("shop").is_none());
    assert_eq!(names(&catalog, "shop"), ["A2", "B2"]);
}

#[test]
fn a_file_that_never_loaded_is_left_out_alone() {
    let files = Arc::new(MemoryLoader::new());
    files.write("shop/a.yaml", POINTS_A);
    files.write(
        "shop/b.yaml",
        "id: 2\nkind: points\nname: B\non: cart\nwhen: cart.totl > 1.0\npoints: { fixed: 7 }\n",
    );
    let (catalog, report) = catalog_of(&files);
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    assert!(report.errors[0].message.contains("totl"));
    assert_eq!(names(&catalog, "shop"), ["A"]);
    let held = catalog.held_back("shop").expect("b is held back");
    assert_eq!(
        held.serving(Serving::LeftOut),
        [PathBuf::from("shop/b.yaml")]
    );
    assert!(!held.nothing_loaded());
    assert_eq!(catalog.problems("shop").map(|p| p.len()), Some(1));
}

#[test]
fn a_new_catalog_serves_the_last_good_versions_an_earlier_one_kept() {
    let files = Arc::new(MemoryLoader::new());
    let segments = Path::new("shop").join(SEGMENTS_FILE);
    files.write(
        &segments,
        "tiers:\n  - id: gold\n    name: Gold\n    condition: lifetime_spend > 100.0\n",
    );
    files.write(
        "shop/a.yaml",
        "id: 1\nkind: points\nname: A\non: cart\ntiers: [gold]\npoints: { fixed: 5 }\n",
    );
    let (_, report) = catalog_of(&files);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let kept = report.good_files;

    // The process stops; both files break before it starts again.
    files.write(
        &segments,
        "tiers:\n  - id: gold\n    name: Gold\n    condition: lifetime_spend >\n",
    );
    files.write(
        "shop/a.yaml",
        "id: 1\nkind: points\nname: A\non: cart\ntiers: [gold]\npoints: { fixd: 5 }\n",
    );
    let (restarted, report) = Catalog::with_last_good(Box::new(files.clone()), kept);
    assert_eq!(report.errors.len(), 2, "{:?}", report.errors);
    assert_eq!(names(&restarted, "shop"), ["A"]);
    assert_eq!(restarted.company("shop").segments.tiers.len(), 1);
    let held = restarted.held_back("shop").expect("held back");
    assert_eq!(held.serving(Serving::LastGood).len(), 2);

    // Without them, the same start serves nothing and says so.
    let (cold, _) = catalog_of(&files);
    assert!(names(&cold, "shop").is_empty());
    assert!(cold.held_back("shop").expect("held back").nothing_loaded());
}

#[test]
fn the_history_window_is_the_longest_literal_look_back() {
    assert_eq!(history_days(["lifetime_spend > 1.0"].into_iter()), None);
    assert_eq!(
        history_days(
            ["history.spent_last_days(365) > 1.0 && history.carts_last_days(30) > 2"].into_iter()
        ),
        Some(365)
    );
    assert_eq!(
        history_days(["history.spent_last_days(calculated.n) > 1.0"].into_iter()),
        Some(MAX_HISTORY_DAYS)
    );
}
